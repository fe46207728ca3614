import type { LocalAccount } from "viem";
import { decodeBase64Json, encodeBase64Json } from "../../../protocol/base64.ts";
import { HEADER_X_PAYMENT, HEADER_X_PAYMENT_RESPONSE } from "../../../protocol/constants.ts";
import type { Quote } from "../../../protocol/schemas/quote.ts";
import { quoteSchema } from "../../../protocol/schemas/quote.ts";
import type { Receipt } from "../../../protocol/schemas/receipt.ts";
import { receiptSchema } from "../../../protocol/schemas/receipt.ts";
import type { BuyerChain, PinnedTerms } from "./pinPaymentTerms.ts";
import { pinPaymentTerms } from "./pinPaymentTerms.ts";
import { signEscrowPayment } from "./signPayment.ts";

/** The call failed; `debited` says whether money moved (it never does unless `ok`). */
export class CallFailedError extends Error {
  override name = "CallFailedError";
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
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
};

export type PayForCallReturnType = {
  quote: Quote;
  terms: PinnedTerms;
  receipt: Receipt;
  body: unknown;
  idemKey: string;
};

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { response, json };
}

/**
 * Pays for one call: asks for the 402 quote, pins its money fields against the chain, signs a DebitAuthorization
 * for the cap, re-posts with X-PAYMENT, and verifies the receipt. Retries the same payment (the same idemKey) on a
 * pending settlement, so a call is paid at most once.
 * @example const { body, receipt } = await payForCall({ chain, account, callUrl, body: { hello: "world" } })
 */
export async function payForCall(p: PayForCallParameters): Promise<PayForCallReturnType> {
  const first = await post(p.callUrl, p.body);
  if (first.response.status !== 402)
    throw new CallFailedError(first.response.status, "no_quote", `expected a 402 quote, got ${first.response.status}`);
  const quote = quoteSchema.parse(first.json);
  const terms = await pinPaymentTerms(p.chain, quote, p.callUrl);
  const payload = await signEscrowPayment({
    account: p.account,
    escrow: terms.escrow,
    resourceId: terms.resourceId,
    maxAmount: terms.cap,
    validBefore: BigInt(Math.floor(Date.now() / 1000) + terms.maxTimeoutSeconds + 120),
  });
  const header = encodeBase64Json(payload);
  for (let attempt = 0; ; attempt++) {
    const paid = await post(p.callUrl, p.body, { [HEADER_X_PAYMENT]: header });
    const status = paid.response.status;
    if (status >= 200 && status < 300) {
      const receipt = receiptSchema.parse(decodeBase64Json(paid.response.headers.get(HEADER_X_PAYMENT_RESPONSE) ?? ""));
      if (
        receipt.payTo !== terms.resourceId ||
        receipt.idemKey !== payload.authorization.nonce ||
        BigInt(receipt.amount) > terms.cap
      ) {
        throw new CallFailedError(status, "bad_receipt", "the receipt does not match the payment that was signed");
      }
      return { quote, terms, receipt, body: paid.json, idemKey: payload.authorization.nonce };
    }
    const code = (paid.json as { error?: { code?: string } | string } | undefined)?.error;
    const reason = typeof code === "string" ? code : (code?.code ?? "unknown");
    if ((status === 503 || status === 409) && attempt < (p.retries ?? 10)) {
      const wait = Number(paid.response.headers.get("retry-after") ?? 1);
      await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(wait, 0.2), 10) * 1000));
      continue;
    }
    throw new CallFailedError(status, reason, `the paid call failed with ${status} ${reason}`);
  }
}
