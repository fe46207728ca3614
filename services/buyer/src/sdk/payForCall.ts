import type { Address, Hex, LocalAccount } from "viem";
import { isHex } from "viem";
import { decodeBase64Json, encodeBase64Json } from "../../../protocol/base64.ts";
import { HEADER_X_PAYMENT, HEADER_X_PAYMENT_RESPONSE } from "../../../protocol/constants.ts";
import type { Quote } from "../../../protocol/schemas/quote.ts";
import type { Receipt } from "../../../protocol/schemas/receipt.ts";
import { receiptSchema } from "../../../protocol/schemas/receipt.ts";
import { authorizationWindow } from "./authorizationWindow.ts";
import type { BuyerChain } from "./buyerChain.ts";
import { BuyerError } from "./buyerError.ts";
import { errorOf, fetchJson } from "./fetchJson.ts";
import { nonceSpent } from "./nonceSpent.ts";
import { PaymentUnknownError } from "./paymentUnknownError.ts";
import type { PinnedTerms } from "./pinPaymentTerms.ts";
import type { ProcessNonces } from "./processNonces.ts";
import { processNonces } from "./processNonces.ts";
import { readDebits } from "./readDebits.ts";
import type { PinnedCard } from "./readPinnedCard.ts";
import { requestQuote } from "./requestQuote.ts";
import { signEscrowPayment } from "./signPayment.ts";

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
  /**
   * Runs after pinning and before signing, with the payment's validBefore already chosen: throwing here (a spend
   * policy) means no signature ever exists; returning (a spend ledger holding the cap) lets it be signed. Returning
   * an idemKey (the bitmap nonce a spend ledger allocated) signs the payment with it; otherwise the payment carries
   * `payment.idemKey`, the process's next bitmap nonce for this key (`nonces`).
   */
  beforeSign?: (terms: PinnedTerms, payment: { idemKey: Hex; validBefore: bigint }) => unknown;
  /**
   * Runs once the payment is signed, before it is sent: the idemKey under which a lost answer can be recovered (again
   * with a new idemKey if the process's own nonce turned out spent and the payment was signed anew).
   */
  onSigned?: (idemKey: Hex, terms: PinnedTerms) => void;
  /** Where the payment's nonce comes from when `beforeSign` gives none (default: this process's `processNonces`). */
  nonces?: ProcessNonces;
  /**
   * The longest the buyer lets its authorization stay valid (seconds, at most MAX_AUTHORIZATION_SECONDS, the default):
   * the quote's `extra.authorizationSeconds` is signed up to this, never past it (`authorizationWindow`).
   */
  maxAuthorizationSeconds?: number;
};

export type PayForCallReturnType = {
  quote: Quote;
  terms: PinnedTerms;
  receipt: Receipt;
  body: unknown;
  idemKey: Hex;
  /** Unix seconds: the signed authorization's end. */
  validBefore: bigint;
};

const postPaid = (chain: BuyerChain, url: string, body: unknown, header: string) =>
  fetchJson(
    url,
    {
      method: "POST",
      headers: { "content-type": "application/json", [HEADER_X_PAYMENT]: header },
      body: JSON.stringify(body),
    },
    "resource",
    { allowPrivate: chain.allowPrivateAddresses, timeoutMs: 60_000 },
  );

function receiptOf(response: { headers: Headers }): Receipt | undefined {
  try {
    const parsed = receiptSchema.safeParse(decodeBase64Json(response.headers.get(HEADER_X_PAYMENT_RESPONSE) ?? ""));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

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
    throw new BuyerError("bad_receipt", "the receipt does not match the payment that was signed");
  }
}

/**
 * Pays for one call: asks for the 402 quote, pins its money fields against the chain, signs a DebitAuthorization
 * for the cap (its nonce from `beforeSign`, else the process's next bitmap nonce for the key: processNonces.ts), valid
 * for the window `authorizationWindow` picks (what the quote asks, within the buyer's cap), re-posts with X-PAYMENT to
 * the pinned URL (never following a redirect), and checks the receipt against what was signed. A nonce of its own
 * refused as used on the payment's first post (another process of the key picked the same word) ran nothing: once the
 * chain shows another payment spent it, it signs again from a new word. Retries the same payment (the same idemKey)
 * on a pending settlement, so a call is paid at most once. Once the payment is sent, any other failure (no answer,
 * any status but 2xx after the retries, a receipt that does not check) is a `PaymentUnknownError`: the chain may have
 * debited it, whatever the answer said.
 * @example const { body, receipt } = await payForCall({ chain, account, callUrl, body: { hello: "world" } })
 */
export async function payForCall(p: PayForCallParameters): Promise<PayForCallReturnType> {
  const { quote, terms } = await requestQuote({ chain: p.chain, callUrl: p.callUrl, body: p.body, pinned: p.pinned });
  const nonces = p.nonces ?? processNonces;
  const buyer = p.account.address;
  const offered = nonces.next(terms.escrow, buyer);
  const window = authorizationWindow(terms, p.maxAuthorizationSeconds);
  const validBefore = BigInt(Math.floor(Date.now() / 1000) + window);
  const chosen = await p.beforeSign?.(terms, { idemKey: offered, validBefore });
  const own = !(isHex(chosen, { strict: true }) && chosen.length === 66);
  let idemKey: Hex = own ? offered : chosen;
  for (let word = 1; ; word++) {
    const paid = await payOnce(p, terms, idemKey, validBefore, own && word < NONCE_WORDS_TRIED);
    if (paid !== NONCE_TAKEN) return { quote, terms, ...paid, idemKey, validBefore };
    nonces.skipWord(terms.escrow, buyer);
    idemKey = nonces.next(terms.escrow, buyer);
  }
}

/** Words `payForCall` tries for its own nonces when the facilitator finds one already spent (another process's). */
const NONCE_WORDS_TRIED = 3;

/** `payOnce`'s answer when the payment was refused before anything ran because its nonce was already spent. */
const NONCE_TAKEN = Symbol("nonce taken");

/** How long a nonce refused as `nonce_used` is watched on chain before the payment is reported payment_unknown. */
const NONCE_SPENT_WAIT_MS = 10_000;

/**
 * Whether another payment spent `nonce` of `buyer`: the escrow has spent it (watched for up to NONCE_SPENT_WAIT_MS:
 * another payment's committed debit lands within a block or two), and no debit of it to this resource has been mined
 * since this payment was sent (block `sentFrom` on). A signature is bound to its resource, so a debit to another
 * resource, or one mined before this payment existed, is not this one, and none can ever be made of it now. A debit to
 * this resource since then may be this very signature: a resource that settled it and then answered `nonce_used` to
 * be paid again.
 */
async function spentByAnother(
  chain: BuyerChain,
  p: { buyer: Address; nonce: Hex; resourceId: Hex; sentFrom: bigint },
): Promise<boolean> {
  const deadline = Date.now() + NONCE_SPENT_WAIT_MS;
  for (;;) {
    const spent = await nonceSpent(chain, p.buyer, p.nonce).catch(() => false);
    if (spent === true) break;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  // Proven or not at all: a read that fails leaves the payment unknown, never re-signed.
  try {
    const toBlock = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
    const since = await readDebits(chain, { buyer: p.buyer, fromBlock: p.sentFrom, toBlock });
    return !since.some(
      (d) => d.idemKey === p.nonce.toLowerCase() && d.resourceId.toLowerCase() === p.resourceId.toLowerCase(),
    );
  } catch {
    return false;
  }
}

/**
 * Signs the payment with `idemKey`, sends it and retries the same payment on a pending settlement. When
 * `nonceMayBeTaken`, a first answer of 402 `nonce_used` is NONCE_TAKEN once the chain shows another payment spent
 * that nonce (spentByAnother): nothing ran for this one, and no debit can ever be made of it. Otherwise it stays
 * payment_unknown: a nonce not spent yet (another payment holds it in flight, or was released) could come free, and
 * one spent to this resource since this payment was sent may be this payment, settled by a resource that lies.
 */
async function payOnce(
  p: PayForCallParameters,
  terms: PinnedTerms,
  idemKey: Hex,
  validBefore: bigint,
  nonceMayBeTaken: boolean,
): Promise<{ receipt: Receipt; body: unknown } | typeof NONCE_TAKEN> {
  const payload = await signEscrowPayment({
    account: p.account,
    escrow: terms.escrow,
    resourceId: terms.resourceId,
    maxAmount: terms.cap,
    validBefore,
    nonce: idemKey,
  });
  p.onSigned?.(idemKey, terms);
  const header = encodeBase64Json(payload);
  // Any block before this payment is sent (a cached head is older, which only widens the search in spentByAnother).
  const sentFrom = nonceMayBeTaken ? await p.chain.publicClient.getBlockNumber() : 0n;
  const unknown = (reason: string, status?: number, cause?: unknown) =>
    new PaymentUnknownError({ idemKey, validBefore, reason, status, cause });
  for (let attempt = 0; ; attempt++) {
    const paid = await postPaid(p.chain, p.callUrl, p.body, header).catch((error: BuyerError) => {
      throw unknown(error.message, undefined, error);
    });
    const status = paid.response.status;
    if (status >= 200 && status < 300) {
      const receipt = receiptOf(paid.response);
      if (!receipt) throw unknown(`the ${status} answer carries no valid X-PAYMENT-RESPONSE receipt`, status);
      try {
        assertReceiptMatches(receipt, {
          resourceId: terms.resourceId,
          idemKey,
          payer: p.account.address,
          cap: terms.cap,
        });
      } catch (error) {
        throw unknown((error as Error).message, status, error);
      }
      return { receipt, body: paid.json };
    }
    const { code } = errorOf(paid.json, status);
    if (nonceMayBeTaken && attempt === 0 && status === 402 && code === "nonce_used") {
      const taken = { buyer: p.account.address, nonce: idemKey, resourceId: terms.resourceId, sentFrom };
      if (await spentByAnother(p.chain, taken)) return NONCE_TAKEN;
      throw unknown(
        "the paid call answered 402 nonce_used, and the chain shows no other payment spent that nonce",
        status,
      );
    }
    if ((status === 503 || status === 409) && attempt < (p.retries ?? 10)) {
      const wait = Number(paid.response.headers.get("retry-after") ?? 1);
      await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(wait, 0.2), 10) * 1000));
      continue;
    }
    throw unknown(`the paid call answered ${status} ${code}`, status);
  }
}
