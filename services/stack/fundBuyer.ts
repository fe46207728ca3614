import type { Account, Address, Chain, Hex, PublicClient, Transport, WalletClient } from "viem";
import { abiOf } from "../protocol/artifacts.ts";

export type FundBuyerParameters = {
  publicClient: PublicClient;
  /** A minter of the local USDC (FiatToken's `configureMinter`: the development admin). */
  minter: WalletClient<Transport, Chain, Account>;
  /** The buyer: approves the escrow and deposits from its own account. */
  buyer: WalletClient<Transport, Chain, Account>;
  token: Address;
  escrow: Address;
  /** What the buyer deposits into the escrow (base units). */
  deposit: bigint;
  /** What is minted to the buyer's wallet first (base units); `deposit` when unset. */
  mint?: bigint;
};

/**
 * Funds a buyer on a development chain: the minter mints local USDC to the buyer's wallet, then the buyer
 * approves the escrow and deposits `deposit` of it, each transaction mined before the next is sent.
 * @example const buyer = await fundBuyer({ publicClient, minter, buyer: wallet, token, escrow, deposit: 1_000_000n })
 */
export async function fundBuyer(p: FundBuyerParameters): Promise<Address> {
  const address = p.buyer.account.address;
  const tokenAbi = abiOf("IFiatToken");
  const mined = async (hash: Hex) => {
    const receipt = await p.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== "success") throw new Error(`funding buyer ${address}: transaction ${hash} reverted`);
  };
  await mined(
    await p.minter.writeContract({
      address: p.token,
      abi: tokenAbi,
      functionName: "mint",
      args: [address, p.mint ?? p.deposit],
    }),
  );
  await mined(
    await p.buyer.writeContract({
      address: p.token,
      abi: tokenAbi,
      functionName: "approve",
      args: [p.escrow, p.deposit],
    }),
  );
  await mined(
    await p.buyer.writeContract({
      address: p.escrow,
      abi: abiOf("PaymentEscrow"),
      functionName: "deposit",
      args: [p.deposit],
    }),
  );
  return address;
}
