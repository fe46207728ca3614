import type { Address, Hex, LocalAccount } from "viem";
import { randomNonce } from "../../../protocol/resourceId.ts";
import { bondTypedData } from "../../../protocol/typedData.ts";
import type { BuyerChain } from "./buyerChain.ts";

/** An EIP-3009 `ReceiveWithAuthorization` of the stablecoin from `from` to the escrow: one gasless deposit. */
export type DepositAuthorization = {
  from: Address;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
  signature: Hex;
};

/** How long a deposit authorization stays valid: long enough for someone else to submit it. */
const DEPOSIT_LIFETIME_SECONDS = 3_600n;

/**
 * Signs, with the buyer's key, an EIP-3009 `ReceiveWithAuthorization` of `value` from the buyer's wallet to the
 * trusted escrow, valid for an hour from the chain's latest block. Only the escrow can receive it (EIP-3009 requires
 * the caller to be the payee), and its `depositWithAuthorization` credits only `from`: whoever submits it pays the
 * gas, not the buyer.
 * @example const authorization = await signDepositAuthorization(chain, account, asset, 1_000_000n)
 */
export async function signDepositAuthorization(
  chain: BuyerChain,
  account: LocalAccount,
  asset: Address,
  value: bigint,
): Promise<DepositAuthorization> {
  const latest = await chain.publicClient.getBlock({ blockTag: "latest" });
  const nonce = randomNonce();
  const validBefore = latest.timestamp + DEPOSIT_LIFETIME_SECONDS;
  const typed = bondTypedData(
    { from: account.address, value, validAfter: 0n, validBefore, nonce },
    chain.escrow,
    asset,
    await chain.publicClient.getChainId(),
  );
  const signature = await account.signTypedData(typed);
  return {
    from: account.address,
    value: value.toString(),
    validAfter: "0",
    validBefore: validBefore.toString(),
    nonce,
    signature,
  };
}
