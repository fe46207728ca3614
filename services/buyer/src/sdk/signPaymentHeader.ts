import type { Hex, LocalAccount } from "viem";
import { encodeBase64Json } from "../../../protocol/base64.ts";
import type { BuyerChain } from "./buyerChain.ts";
import type { ProcessNonces } from "./processNonces.ts";
import { processNonces } from "./processNonces.ts";
import { readRegistration } from "./readRegistration.ts";
import { signEscrowPayment } from "./signPayment.ts";

export type SignPaymentHeaderParameters = {
  chain: BuyerChain;
  account: LocalAccount;
  resourceId: Hex;
  /** Seconds the authorization stays valid (default 600: time to paste it into a curl command). */
  validSeconds?: number;
  /** Where the nonce comes from (default: this process's `processNonces`, as `payForCall` without a ledger). */
  nonces?: ProcessNonces;
};

/**
 * An `X-PAYMENT` header value for one call to `resourceId`, for paying by hand: a DebitAuthorization for the cap the
 * registry holds (read from the chain, never from a card or an index row), signed with a bitmap nonce from the
 * allocator `payForCall` uses without a ledger. A bitmap nonce shares its buyer's nonce word, so its debit costs what
 * the price floor is computed for; a random nonce writes a slot of its own, and the facilitator refuses it (402
 * `invalid_payload`) for any resource priced below that dearer floor, the samples of `npm start` among them.
 * @example const header = await signPaymentHeader({ chain, account, resourceId })
 */
export async function signPaymentHeader(p: SignPaymentHeaderParameters): Promise<string> {
  const { pricing } = await readRegistration(p.chain, p.resourceId);
  const payload = await signEscrowPayment({
    account: p.account,
    escrow: p.chain.escrow,
    resourceId: p.resourceId,
    maxAmount: pricing.max,
    validBefore: BigInt(Math.floor(Date.now() / 1000) + (p.validSeconds ?? 600)),
    nonce: (p.nonces ?? processNonces).next(p.chain.escrow, p.account.address),
  });
  return encodeBase64Json(payload);
}
