import type { Address, Hex } from "viem";
import { hashTypedData } from "viem";
import { MAX_AUTHORIZATION_SECONDS, SIGNING_MARGIN_SECONDS } from "../protocol/constants.ts";
import { debitDigest } from "../protocol/debitDigest.ts";
import { BaseError } from "../protocol/errors.ts";
import { exactNonceAllows } from "../protocol/exactNonce.ts";
import type { VerifyReason } from "../protocol/reasons.ts";
import type { PaymentPayload } from "../protocol/schemas/paymentPayload.ts";
import { transferTypedData } from "../protocol/typedData.ts";
import { checkSignature } from "./checkSignature.ts";
import { debitShortfall } from "./debitShortfall.ts";
import { exactShortfall } from "./exactShortfall.ts";
import type { FacilitatorContext } from "./facilitatorContext.ts";
import type { ReserveOutcome } from "./store/reservations.ts";
import { findReservation, reserve } from "./store/reservations.ts";

export type VerifyPaymentParameters = {
  payload: PaymentPayload;
  resourceId: Hex;
  maxTimeoutSeconds: number;
  /** The hash of the request the payment is for (requestHash.ts), stored with the reservation; gates may omit it. */
  requestHash?: Hex | undefined;
};

/** `POST /verify`'s answer: a reservation, or why there is none (expected failures are data). */
export type VerifyPaymentReturnType =
  | { isValid: true; payer: Address; idemKey: Hex; reserved: string; expiresAt: string }
  | { isValid: false; invalidReason: VerifyReason | "invalid_payload"; invalidMessage: string };

/**
 * Longest a reservation is held, whatever the authorization's window: far below the escrow's one-day
 * withdrawal delay, so funds can never leave from under a live reservation.
 */
export const MAX_RESERVATION_SECONDS = 3_600;

/**
 * Seconds a reservation outlives the gate's `maxTimeoutSeconds` at most, whatever the authorization's window: the
 * margin a buyer's window of its own has over the call (SIGNING_MARGIN_SECONDS). A long window lets the relayer hold
 * the committed debit; it does not keep the buyer's funds reserved longer for a call never settled.
 */
export const RESERVATION_MARGIN_SECONDS = SIGNING_MARGIN_SECONDS;

const refuse = (invalidReason: VerifyReason | "invalid_payload", invalidMessage: string): VerifyPaymentReturnType => ({
  isValid: false,
  invalidReason,
  invalidMessage,
});

/**
 * Verify cannot trust the escrow book: it has not reached the chain's head for its allowed lag, and catching up
 * failed or is still under way. Answered 503 `chain_unavailable`, to be retried: verify refuses rather than guesses.
 */
export class EscrowBookBehindError extends Error {
  constructor(cause?: unknown) {
    super("the facilitator's escrow book is catching up with the chain; retry shortly", { cause });
    this.name = "EscrowBookBehindError";
  }
}

/**
 * A verify that cannot be answered before the escrow book has caught up with the chain (a refusal the book may owe to
 * a block it has not read, or a book behind), asked not to wait for it (`waitForBook: false`): the call of a batch,
 * which is then sent on its own route (docs/protocol.md, "Facilitator batches").
 */
export class BookCatchUpDeferredError extends BaseError {
  override name = "BookCatchUpDeferredError";
  constructor() {
    super("this verify waits for the escrow book to catch up: send it on its own route");
  }
}

/** How a verify may be answered: whether it may wait for the escrow book to catch up (default: yes). */
export type VerifyPaymentOptions = { waitForBook?: boolean };

/**
 * Reserve-before-run: checks a payment's binding, window, signature and cap, that its price pays for its settlement
 * at the current base fee (debitShortfall, exactShortfall), then — in one statement, under a
 * per-buyer lock that holds across instances — the nonce, the buyer's un-reserved balance and spend limit, from the
 * escrow book the store keeps (escrowBook/; an `exact` payment's token state is read on chain), and reserves the
 * resource's cap until the authorization expires or, sooner, `maxTimeoutSeconds` + RESERVATION_MARGIN_SECONDS from now
 * (`expiresAt`; a reservation not settled by then expires). A payment this store already holds is `nonce_used` even
 * where the resource's standing or the fee refuses new ones now (a settled call's retry is answered with its stored
 * response). A handler may run only after this returns `isValid: true`.
 * @example const result = await verifyPayment(ctx, { payload, resourceId, maxTimeoutSeconds: 60 })
 */
export async function verifyPayment(
  ctx: FacilitatorContext,
  p: VerifyPaymentParameters,
  options: VerifyPaymentOptions = {},
): Promise<VerifyPaymentReturnType> {
  const now = ctx.clock.now();
  const a = p.payload.scheme === "service-escrow" ? escrowTerms(p.payload) : exactTerms(p.payload, ctx.escrow);
  if ("refusal" in a) return a.refusal;
  if (a.resourceId !== undefined && a.resourceId !== p.resourceId) {
    return refuse("invalid_payload", "the authorization is bound to another resource");
  }
  if (p.payload.scheme === "exact" && !exactNonceAllows(a.nonce, p.resourceId)) {
    return refuse("invalid_payload", "the exact payment's nonce is bound to another resource");
  }
  if (a.validBefore < BigInt(now + p.maxTimeoutSeconds)) {
    return refuse("expired", `validBefore must be at least ${p.maxTimeoutSeconds}s in the future`);
  }
  if (a.validAfter > BigInt(now)) return refuse("expired", "the authorization is not valid yet");
  if (a.validBefore > BigInt(now + MAX_AUTHORIZATION_SECONDS)) {
    return refuse("invalid_payload", `validBefore must be at most ${MAX_AUTHORIZATION_SECONDS}s in the future`);
  }

  const standing = resourceStanding(await ctx.chain.resourceTerms(p.resourceId), a.maxAmount);
  const digest =
    p.payload.scheme === "service-escrow"
      ? debitDigest(p.payload.authorization, ctx.escrow)
      : hashTypedData(transferTypedData(p.payload.authorization, ctx.token));
  // Checked by the rule of the contract that will check it: the escrow for debits, the token for EIP-3009.
  const rule = p.payload.scheme === "service-escrow" ? "key-first" : "code-first";
  const signedBy = await checkSignature({
    chain: ctx.chain,
    signer: a.payer,
    digest,
    signature: p.payload.signature,
    rule,
  });
  if (!signedBy) return refuse("bad_signature", "the signature is not the payer's over this authorization");
  // The resource's standing and the chain's fee may have changed since this store took this very payment: it is then
  // `nonce_used`, so that a gate answers the retry of a settled call with its stored response (heldAlready).
  const held = () => heldAlready(ctx, a);
  if ("refusal" in standing) return (await held()) ? NONCE_USED : standing.refusal;
  const { terms } = standing;

  const scheme = p.payload.scheme;
  const reserved = scheme === "exact" ? a.maxAmount : terms.cap;
  const validBefore = Number(a.validBefore);
  const expiresAt = Math.min(validBefore, now + p.maxTimeoutSeconds + RESERVATION_MARGIN_SECONDS);
  const reservation = {
    idemKey: a.nonce,
    scheme,
    buyer: a.payer,
    resourceId: p.resourceId,
    cap: reserved,
    payload: {
      scheme,
      authorization: p.payload.authorization,
      signature: p.payload.signature,
      ...(signedBy === "contract" ? { signedBy } : {}),
      ...(expiresAt < validBefore ? { reservedUntil: expiresAt } : {}),
    },
    validBefore,
    requestHash: p.requestHash,
  };
  let outcome: ReserveOutcome;
  if (scheme === "service-escrow") {
    // Committed at settle and mined later by the relayer: not taken at all when the relayer cannot pay for it now.
    const cannotPay = await ctx.relayer.ensureCanPay().then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    if (cannotPay) {
      if (await held()) return NONCE_USED;
      throw cannotPay.error;
    }
    // Nor when its price does not pay for its debit at the current fee: the price floor, with the gas of this nonce.
    const shortfall = await debitShortfall(ctx.chain, terms.base, a.nonce);
    if (shortfall) return (await held()) ? NONCE_USED : refuse("invalid_payload", shortfall);
    // Against the escrow book (escrowBook/): one statement, no chain read. A refusal the book may owe to being a
    // block or two behind (a deposit just mined) is tried once more after the book has caught up with the head, in a
    // catch-up that starts after the refusal and is shared with every other caller (at most one per catchUpGapMs).
    const against = { now, book: { maxLagSeconds: ctx.escrowBook.maxLagSeconds } };
    outcome = await reserve(ctx.store, reservation, against);
    const waits =
      outcome.outcome === "book_behind" || outcome.outcome === "insufficient_balance" || outcome.outcome === "over_cap";
    if (waits && options.waitForBook === false) throw new BookCatchUpDeferredError();
    if (outcome.outcome === "book_behind") {
      await ctx.escrowBook.catchUpAfterNow().catch((cause: unknown) => {
        throw new EscrowBookBehindError(cause);
      });
      outcome = await reserve(ctx.store, reservation, against);
    } else if (outcome.outcome === "insufficient_balance" || outcome.outcome === "over_cap") {
      // The refusal stands as the book's if the chain cannot be reached to check it.
      if (
        await ctx.escrowBook.catchUpAfterNow().then(
          () => true,
          () => false,
        )
      )
        outcome = await reserve(ctx.store, reservation, against);
    }
  } else {
    // It is settled alone, at the relayer's cost: refused first, without a token read, if it cannot pay for that.
    const shortfall = ctx.exactCoversSettlement ? await exactShortfall(ctx.chain, a.maxAmount) : null;
    if (shortfall) return (await held()) ? NONCE_USED : refuse("invalid_payload", shortfall);
    // The token's state is not in the book: read on chain at a block it names, outside any lock; reserving then
    // counts as held every debit mined at or after that block, so one landing in between is counted twice (safe).
    const state = await ctx.chain.exactPayerState(a.payer, a.nonce);
    if (state.authorizationUsed || state.nonceSpent)
      return refuse("nonce_used", "this authorization was already used or cancelled");
    outcome = await reserve(ctx.store, reservation, {
      now,
      available: state.tokenBalance,
      room: null,
      atBlock: state.atBlock,
    });
  }
  switch (outcome.outcome) {
    case "nonce_used":
      return NONCE_USED;
    case "book_behind":
      throw new EscrowBookBehindError();
    case "insufficient_balance": {
      const left = outcome.available - outcome.held;
      return scheme === "exact"
        ? refuse("insufficient_balance", `token balance is below ${reserved}`)
        : refuse("insufficient_balance", `un-reserved escrow balance ${left < 0n ? 0n : left} is below ${reserved}`);
    }
    case "over_cap":
      return refuse("over_cap", "the debit would pass the buyer's spend limit");
    case "reserved":
      if (scheme === "service-escrow" && ctx.settlement === "committed")
        ctx.reservedTerms.remember(a.nonce, {
          resourceId: p.resourceId,
          buyer: a.payer,
          cap: reserved,
          validBefore,
          signedBy: signedBy === "contract" ? "contract" : "key",
        });
      return {
        isValid: true as const,
        payer: a.payer,
        idemKey: a.nonce,
        reserved: reserved.toString(),
        expiresAt: new Date(expiresAt * 1000).toISOString(),
      };
  }
}

const NONCE_USED = refuse("nonce_used", "this nonce was already used");

type ResourceTerms = NonNullable<Awaited<ReturnType<FacilitatorContext["chain"]["resourceTerms"]>>>;

/** The resource's terms when it takes a payment signed for at most `maxAmount`, or why it does not now. */
function resourceStanding(
  terms: ResourceTerms | null | undefined,
  maxAmount: bigint,
): { terms: ResourceTerms } | { refusal: VerifyPaymentReturnType } {
  if (!terms?.active) return { refusal: refuse("invalid_payload", "the resource is unknown or inactive") };
  if (maxAmount < terms.cap)
    return { refusal: refuse("over_cap", `the signed cap ${maxAmount} is below the resource's cap ${terms.cap}`) };
  return { terms };
}

/**
 * Whether this store holds a payment of the payer's with this nonce, in any state (reserved, settling, settled,
 * released or expired): read only where verify refuses for the resource's standing or the chain's fee, which may have
 * changed since it was taken; the reservation itself refuses a held nonce in its statement.
 */
async function heldAlready(ctx: FacilitatorContext, a: Pick<Terms, "payer" | "nonce">): Promise<boolean> {
  return (await findReservation(ctx.store, { idemKey: a.nonce, buyer: a.payer })) !== null;
}

type Terms = {
  payer: Address;
  nonce: Hex;
  maxAmount: bigint;
  validAfter: bigint;
  validBefore: bigint;
  resourceId?: Hex;
};

function escrowTerms(payload: Extract<PaymentPayload, { scheme: "service-escrow" }>): Terms {
  const a = payload.authorization;
  return {
    payer: a.buyer,
    nonce: a.nonce,
    maxAmount: BigInt(a.maxAmount),
    validAfter: BigInt(a.validAfter),
    validBefore: BigInt(a.validBefore),
    resourceId: a.resourceId,
  };
}

function exactTerms(
  payload: Extract<PaymentPayload, { scheme: "exact" }>,
  escrow: Address,
): Terms | { refusal: VerifyPaymentReturnType } {
  const a = payload.authorization;
  if (a.to !== escrow) return { refusal: refuse("invalid_payload", "an exact payment must pay the escrow") };
  return {
    payer: a.from,
    nonce: a.nonce,
    maxAmount: BigInt(a.value),
    validAfter: BigInt(a.validAfter) + 1n,
    validBefore: BigInt(a.validBefore),
  };
}
