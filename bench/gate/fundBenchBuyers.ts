import type { Address, Hex, LocalAccount } from "viem";
import { createPublicClient, createWalletClient, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { abiOf } from "../../services/protocol/artifacts.ts";
import { serviceChain } from "../../services/protocol/chain.ts";
import { DEV_ROLE, devKey } from "../../services/stack/devAccounts.ts";

export type FundBenchBuyersParameters = {
  rpcUrl: string;
  token: Address;
  escrow: Address;
  /** How many fresh buyers to create. */
  count: number;
  /** What each one gets deposited in the escrow (base units). */
  deposit: bigint;
};

/**
 * Creates `count` fresh buyers and deposits `deposit` for each in the escrow of a local stack: the development admin
 * mints the total, approves the escrow and calls `depositFor` per buyer, every transaction sent at once with its own
 * nonce (so that 500 ms blocks take a block or two, not one per buyer), then waits for all of them.
 * @example const buyers = await fundBenchBuyers({ rpcUrl, token, escrow, count: 64, deposit: 5_000_000n })
 */
export async function fundBenchBuyers(p: FundBenchBuyersParameters): Promise<LocalAccount[]> {
  const chain = serviceChain(p.rpcUrl);
  const transport = http(p.rpcUrl);
  const publicClient = createPublicClient({ chain, transport });
  const admin = createWalletClient({ account: privateKeyToAccount(devKey(DEV_ROLE.admin)), chain, transport });
  const buyers = Array.from({ length: p.count }, () => privateKeyToAccount(generatePrivateKey()));
  const total = p.deposit * BigInt(p.count);
  let nonce = await publicClient.getTransactionCount({ address: admin.account.address, blockTag: "pending" });
  const tokenAbi = abiOf("IFiatToken");
  const escrowAbi = abiOf("PaymentEscrow");
  const gas = 200_000n;
  const sent: Hex[] = [
    await admin.writeContract({
      address: p.token,
      abi: tokenAbi,
      functionName: "mint",
      args: [admin.account.address, total],
      nonce: nonce++,
      gas,
    }),
    await admin.writeContract({
      address: p.token,
      abi: tokenAbi,
      functionName: "approve",
      args: [p.escrow, total],
      nonce: nonce++,
      gas,
    }),
  ];
  for (const buyer of buyers)
    sent.push(
      await admin.writeContract({
        address: p.escrow,
        abi: escrowAbi,
        functionName: "depositFor",
        args: [buyer.address, p.deposit],
        nonce: nonce++,
        gas,
      }),
    );
  for (const hash of sent) {
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    if (receipt.status !== "success") throw new Error(`funding the bench buyers failed in ${hash}`);
  }
  return buyers;
}
