import type { Hex, LocalAccount } from "viem";
import { decodeBase64Json, encodeBase64Json } from "../../../protocol/base64.ts";
import { HEADER_X_PAYMENT, HEADER_X_PAYMENT_RESPONSE } from "../../../protocol/constants.ts";
import type { Quote } from "../../../protocol/schemas/quote.ts";
import type { Receipt } from "../../../protocol/schemas/receipt.ts";
import { receiptSchema } from "../../../protocol/schemas/receipt.ts";
import { BuyerError } from "./buyerError.ts";
import { errorOf, fetchJson } from "./fetchJson.ts";
import type { BuyerChain, PinnedTerms } from "./pinPaymentTerms.ts";
import type { PinnedCard } from "./readPinnedCard.ts";
import { requestQuote } from "./requestQuote.ts";
import { signEscrowPayment } from "./signPayment.ts";

/** The call failed; no money moved unless the error says the answer was lost after payment (`paid_unknown`). */
export class CallFailedError extends BuyerError {
  override name = "CallFailedError";
  readonly status: number;
  constructor(status: number, code: string, message: string) {
    super(code, message);
    this.status = status;
  }
}

export type PayForCallParameters = {
  chain: BuyerChain;
  account: LocalAccount;
  /** The resource's `POST /call` URL. */
  callUrl: string;
  body: unknown;
  /** How many times a pending settlement (503) or an in-flight duplicate (409) is retried with the same payment. */
  retries?: number;
  /** The card already pinned for this resource (saves a read; the quote must pay this resource). */
  pinned?: PinnedCard;
  /** Runs after pinning and before signing; throwing here (a spend policy) means no signature ever exists. */
  beforeSign?: (terms: PinnedTerms) => void | Promise<void>;
  /** Runs once the payment is signed, before it is sent: the idemKey under which a lost answer can be recovered. */
  onSigned?: (idemKey: Hex, terms: PinnedTerms) => void;
};

export type PayForCallReturnType = {
  quote: Quote;
  terms: PinnedTerms;
  receipt: Receipt;
  body: unknown;
  idemKey: Hex;
};

const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetchJson(
    url,
    { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) },
    "resource",
    60_000,
  );

/**
 * Checks a receipt against the payment that was signed: same resource, same idemKey, same payer, at most the cap.
 * @example assertReceiptMatches(receipt, { resourceId, idemKey, payer: account.address, cap })
 */
export function assertReceiptMatches(
  receipt: Receipt,
  signed: { resourceId: Hex; idemKey: Hex; payer: string; cap: bigint },
): void {
  if (
    receipt.payTo.toLowerCase() !== signed.resourceId.toLowerCase() ||
    receipt.idemKey.toLowerCase() !== signed.idemKey.toLowerCase() ||
    receipt.payer.toLowerCase() !== signed.payer.toLowerCase() ||
    BigInt(receipt.amount) > signed.cap
  ) {
    throw new CallFailedError(0, "bad_receipt", "the receipt does not match the payment that was signed");
  }
}

/**
 * Pays for one call: asks for the 402 quote, pins its money fields against the chain, signs a DebitAuthorization
 * for the cap, re-posts with X-PAYMENT, and verifies the receipt. Retries the same payment (the same idemKey) on a
 * pending settlement, so a call is paid at most once.
 * @example const { body, receipt } = await payForCall({ chain, account, callUrl, body: { hello: "world" } })
 */
export async function payForCall(p: PayForCallParameters): Promise<PayForCallReturnType> {
  const { quote, terms } = await requestQuote({ chain: p.chain, callUrl: p.callUrl, body: p.body, pinned: p.pinned });
  await p.beforeSign?.(terms);
  const payload = await signEscrowPayment({
    account: p.account,
    escrow: terms.escrow,
    resourceId: terms.resourceId,
    maxAmount: terms.cap,
    validBefore: BigInt(Math.floor(Date.now() / 1000) + terms.maxTimeoutSeconds + 120),
  });
  const idemKey = payload.authorization.nonce;
  p.onSigned?.(idemKey, terms);
  const header = encodeBase64Json(payload);
  for (let attempt = 0; ; attempt++) {
    const paid = await postJson(p.callUrl, p.body, { [HEADER_X_PAYMENT]: header }).catch((error: BuyerError) => {
      throw new CallFailedError(
        0,
        "paid_unknown",
        `${error.message}; the payment may have settled: recover it with idemKey ${idemKey}`,
      );
    });
    const status = paid.response.status;
    if (status >= 200 && status < 300) {
      const parsed = receiptSchema.safeParse(
        (() => {
          try {
            return decodeBase64Json(paid.response.headers.get(HEADER_X_PAYMENT_RESPONSE) ?? "");
          } catch {
            return undefined;
          }
        })(),
      );
      if (!parsed.success)
        throw new CallFailedError(status, "bad_receipt", "the paid answer carries no valid X-PAYMENT-RESPONSE receipt");
      const receipt = parsed.data;
      assertReceiptMatches(receipt, {
        resourceId: terms.resourceId,
        idemKey,
        payer: p.account.address,
        cap: terms.cap,
      });
      return { quote, terms, receipt, body: paid.json, idemKey };
    }
    const { code } = errorOf(paid.json, status);
    if ((status === 503 || status === 409) && attempt < (p.retries ?? 10)) {
      const wait = Number(paid.response.headers.get("retry-after") ?? 1);
      await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(wait, 0.2), 10) * 1000));
      continue;
    }
    throw new CallFailedError(status, code, `the paid call failed with ${status} ${code}`);
  }
}
