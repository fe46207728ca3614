import type { Address, Hex } from "viem";
import { hashTypedData } from "viem";
import { MAX_AUTHORIZATION_SECONDS } from "../protocol/constants.ts";
import { debitDigest } from "../protocol/debitDigest.ts";
import { defined } from "../protocol/defined.ts";
import { exactNonceAllows } from "../protocol/exactNonce.ts";
import type { VerifyReason } from "../protocol/reasons.ts";
import type { PaymentPayload } from "../protocol/schemas/paymentPayload.ts";
import { transferTypedData } from "../protocol/typedData.ts";
import { checkSignature } from "./checkSignature.ts";
import type { FacilitatorContext } from "./facilitatorContext.ts";
import { spendLimitRoom } from "./spendLimitRoom.ts";
import { reserve } from "./store/reservations.ts";

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

const refuse = (invalidReason: VerifyReason | "invalid_payload", invalidMessage: string): VerifyPaymentReturnType => ({
  isValid: false,
  invalidReason,
  invalidMessage,
});

/**
 * Reserve-before-run: checks a payment's binding, window, signature, nonce and cap, reads the buyer's state on
 * chain, then — in one statement, under a per-buyer lock that holds across instances — its un-reserved balance and
 * spend limit, and reserves the resource's cap until the authorization expires. A handler may run only after this
 * returns `isValid: true`.
 * @example const result = await verifyPayment(ctx, { payload, resourceId, maxTimeoutSeconds: 60 })
 */
export async function verifyPayment(
  ctx: FacilitatorContext,
  p: VerifyPaymentParameters,
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

  const terms = await ctx.chain.resourceTerms(p.resourceId);
  if (!terms?.active) return refuse("invalid_payload", "the resource is unknown or inactive");
  if (a.maxAmount < terms.cap) {
    return refuse("over_cap", `the signed cap ${a.maxAmount} is below the resource's cap ${terms.cap}`);
  }
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

  // The chain is read first, outside any lock, at a block it names; reserving then counts as held every debit
  // mined at or after that block, so a debit landing in between is counted twice (safe), never missed.
  const scheme = p.payload.scheme;
  const reserved = scheme === "exact" ? a.maxAmount : terms.cap;
  const expiresAt = Number(a.validBefore);
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
    },
    validBefore: expiresAt,
    requestHash: p.requestHash,
  };
  const reserveAgainst = async (chain: ChainView) => ({
    chain,
    outcome: await reserve(ctx.store, reservation, { now, ...chain }),
  });
  let reserving: Awaited<ReturnType<typeof reserveAgainst>> | undefined;
  if (p.payload.scheme === "service-escrow") {
    // A snapshot shared with this buyer's recent verifies (buyerSnapshots.ts); one that would refuse is read afresh.
    for (const fresh of [false, true]) {
      const state = await ctx.buyerSnapshots.get(a.payer, a.nonce, { fresh });
      if (state.nonceSpent) return refuse("nonce_used", "this nonce was already spent on chain");
      reserving = await reserveAgainst({
        available: state.balance - state.pendingWithdrawal,
        room: spendLimitRoom(state.spendLimit, BigInt(now), a.validBefore),
        atBlock: state.atBlock,
      });
      const outcome = reserving.outcome.outcome;
      if (state.nonceSpent === false || outcome === "reserved" || outcome === "nonce_used") break;
    }
  } else {
    const state = await ctx.chain.exactPayerState(a.payer, a.nonce);
    if (state.authorizationUsed || state.nonceSpent)
      return refuse("nonce_used", "this authorization was already used or cancelled");
    reserving = await reserveAgainst({ available: state.tokenBalance, room: null, atBlock: state.atBlock });
  }
  const { chain, outcome } = defined(reserving, "a reservation attempt");
  switch (outcome.outcome) {
    case "nonce_used":
      return refuse("nonce_used", "this nonce was already used");
    case "insufficient_balance": {
      const left = chain.available - outcome.held;
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
          validBefore: expiresAt,
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

/** What the chain says a payment may reserve: the available balance, the spend limit's room, and the block read. */
type ChainView = { available: bigint; room: bigint | null; atBlock: bigint };

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
