/**
 * A process of one buyer key that signs nothing: it holds `count` payments in the key's spend ledger, each with the
 * bitmap nonce the ledger allocates, and prints the idemKeys as JSON. Tests start several at once on one ledger.
 *
 * Usage: node testkit/buyer/holdNonces.ts <rpcUrl> <escrow> <buyer> <dir> <count>
 */
import type { Address, Hex } from "viem";
import { buyerChain } from "../../services/buyer/src/sdk/buyerChain.ts";
import { openSpendLedger } from "../../services/buyer/src/sdk/openSpendLedger.ts";

const [rpcUrl, escrow, buyer, dir, count] = process.argv.slice(2);
if (!rpcUrl || !escrow || !buyer || !dir || !count)
  throw new Error("usage: holdNonces.ts rpcUrl escrow buyer dir count");
const ledger = openSpendLedger({
  dir,
  chain: buyerChain({ rpcUrl, escrow: escrow as Address }),
  buyer: buyer as Address,
});
const held: Hex[] = [];
for (let i = 0; i < Number(count); i++) {
  held.push(
    await ledger.hold(
      { resourceId: `0x${"ab".repeat(32)}`, cap: 1n, validBefore: BigInt(Math.floor(Date.now() / 1000) + 600) },
      () => {},
    ),
  );
}
process.stdout.write(JSON.stringify(held));
