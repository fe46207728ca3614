import { expect } from "chai";
import fc from "fast-check";
import type { Hex, TransactionSerializableEIP1559 } from "viem";
import { bytesToHex, recoverTransactionAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { CHAIN_ID } from "../../protocol/constants.ts";
import { nativeSecp256k1 } from "../secp256k1.ts";
import { signingAccount } from "./signingAccount.ts";

const transaction = fc
  .record({
    to: fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => bytesToHex(b)),
    data: fc.uint8Array({ maxLength: 12_000 }).map((b) => bytesToHex(b)),
    gas: fc.bigInt({ min: 21_000n, max: 30_000_000n }),
    nonce: fc.nat({ max: 2 ** 32 }),
    aboveTip: fc.bigInt({ min: 0n, max: 10n ** 15n }),
    maxPriorityFeePerGas: fc.bigInt({ min: 0n, max: 10n ** 12n }),
  })
  .map(({ aboveTip, ...tx }) => ({ ...tx, maxFeePerGas: tx.maxPriorityFeePerGas + aboveTip }));
const key = fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((b) => b.some((x) => x !== 0) && b[0] !== 0xff);

describe("signingAccount", function () {
  it("signs a transaction into the very bytes viem's account does, for random keys and transactions", async function () {
    expect(nativeSecp256k1, "the libsecp256k1 binding loads here").to.not.equal(null);
    await fc.assert(
      fc.asyncProperty(key, transaction, async (keyBytes, tx) => {
        const k = bytesToHex(keyBytes);
        const signable: TransactionSerializableEIP1559 = { type: "eip1559", chainId: CHAIN_ID, ...tx };
        const ours = await signingAccount(k).signTransaction(signable);
        expect(ours).to.equal(await privateKeyToAccount(k).signTransaction(signable));
        expect(await recoverTransactionAddress({ serializedTransaction: ours as never })).to.equal(
          privateKeyToAccount(k).address,
        );
      }),
      { numRuns: 40 },
    );
  });

  it("is viem's own account when the binding cannot load", async function () {
    const k: Hex = `0x${"42".repeat(32)}`;
    const account = signingAccount(k, null);
    expect(account.address).to.equal(privateKeyToAccount(k).address);
    const tx = { type: "eip1559", chainId: CHAIN_ID, to: k.slice(0, 42) as Hex, nonce: 1, gas: 21_000n } as const;
    expect(await account.signTransaction(tx)).to.equal(await privateKeyToAccount(k).signTransaction(tx));
  });
});
