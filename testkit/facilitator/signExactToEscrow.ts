import type { Address } from "viem";
import type { SignExactPaymentParameters } from "../../services/buyer/src/sdk/signPayment.ts";
import { signExactPayment } from "../../services/buyer/src/sdk/signPayment.ts";

/**
 * An exact (EIP-3009) payment of `value` from `account` to a local chain's escrow, in its token, valid for ten
 * minutes; `token`, `escrow` or `validBefore` given in `p` replace those (a substitution test pays elsewhere).
 * @example const paymentPayload = await signExactToEscrow(chain, { account: buyer, value: CAP, resourceId })
 */
export function signExactToEscrow(
  chain: { addresses: { token: Address; escrow: Address } },
  p: Omit<SignExactPaymentParameters, "token" | "escrow" | "validBefore"> &
    Partial<Pick<SignExactPaymentParameters, "token" | "escrow" | "validBefore">>,
) {
  return signExactPayment({
    ...p,
    token: p.token ?? chain.addresses.token,
    escrow: p.escrow ?? chain.addresses.escrow,
    validBefore: p.validBefore ?? BigInt(Math.floor(Date.now() / 1000) + 600),
  });
}
