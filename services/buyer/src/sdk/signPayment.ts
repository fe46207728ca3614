import type { Address, Hex, LocalAccount } from "viem";
import { NETWORK, SCHEME_ESCROW, SCHEME_EXACT, X402_VERSION } from "../../../protocol/constants.ts";
import { resourceBoundNonce } from "../../../protocol/exactNonce.ts";
import { randomNonce } from "../../../protocol/resourceId.ts";
import { debitTypedData, transferTypedData } from "../../../protocol/typedData.ts";

export type SignEscrowPaymentParameters = {
  account: LocalAccount;
  escrow: Address;
  resourceId: Hex;
  /** The cap the buyer accepts (the quote's maxAmountRequired). */
  maxAmount: bigint;
  /** Unix seconds after which the authorization is void; must outlive the quote's maxTimeoutSeconds. */
  validBefore: bigint;
  validAfter?: bigint;
  nonce?: Hex;
};

/**
 * Signs a `service-escrow` payment: an EIP-712 DebitAuthorization bound to chain, escrow, resource and nonce.
 * The escrow, resource id and cap must come from trusted values, never from an index row.
 * @example const payload = await signEscrowPayment({ account, escrow, resourceId, maxAmount: 50000n, validBefore })
 */
export async function signEscrowPayment(p: SignEscrowPaymentParameters) {
  const authorization = {
    buyer: p.account.address,
    resourceId: p.resourceId,
    maxAmount: p.maxAmount.toString(),
    validAfter: (p.validAfter ?? 0n).toString(),
    validBefore: p.validBefore.toString(),
    nonce: p.nonce ?? randomNonce(),
  };
  const signature = await p.account.signTypedData(debitTypedData(authorization, p.escrow));
  return { x402Version: X402_VERSION, scheme: SCHEME_ESCROW, network: NETWORK, authorization, signature } as const;
}

export type SignExactPaymentParameters = {
  account: LocalAccount;
  token: Address;
  /** The escrow: the `exact` entry's payTo. */
  escrow: Address;
  value: bigint;
  validBefore: bigint;
  validAfter?: bigint;
  /** The resource paid for (the quote's `extra.resourceId`): the nonce is then bound to it (see exactNonce.ts). */
  resourceId?: Hex;
  nonce?: Hex;
};

/**
 * Signs an `exact` payment: an EIP-3009 TransferWithAuthorization of `value` to the escrow, under the token's domain.
 * Given `resourceId`, its nonce is bound to that resource, so an intercepted payment pays no other resource.
 * @example const payload = await signExactPayment({ account, token, escrow, value: 50000n, validBefore, resourceId })
 */
export async function signExactPayment(p: SignExactPaymentParameters) {
  const authorization = {
    from: p.account.address,
    to: p.escrow,
    value: p.value.toString(),
    validAfter: (p.validAfter ?? 0n).toString(),
    validBefore: p.validBefore.toString(),
    nonce: p.nonce ?? (p.resourceId ? resourceBoundNonce(p.resourceId) : randomNonce()),
  };
  const signature = await p.account.signTypedData(transferTypedData(authorization, p.token));
  return { x402Version: X402_VERSION, scheme: SCHEME_EXACT, network: NETWORK, authorization, signature } as const;
}
