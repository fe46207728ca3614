import type { Context } from "koa";
import { decodeBase64Json } from "../protocol/base64.ts";
import { requestHash } from "../protocol/requestHash.ts";
import { samePayment } from "../protocol/samePayment.ts";
import { receiptSchema } from "../protocol/schemas/receipt.ts";
import { answerSettlement, sendSettlementPending } from "./answerSettlement.ts";
import { type GateMiddleware, type GateRuntime, type GateState, keyOfPayment, stepValue } from "./gateRuntime.ts";
import { recoverPayer } from "./recoverPayer.ts";
import { VERIFY_GRACE_SECONDS } from "./resolveGateConfig.ts";
import { sendError } from "./sendError.ts";
import { sendPaid } from "./sendPaid.ts";

/**
 * The stored result of an already settled payment, or the facilitator's word that it is still open (its call being
 * served elsewhere, or its settlement not mined yet), when it is this very payment: same resource, the same
 * authorization and signature byte for byte as the one reserved (a second authorization that reuses the nonce, even
 * by the same buyer, is not the same payment), same payer (a result's receipt names it), and a signature by that payer
 * (proven by the facilitator's `nonce_used`, which it answers only after the signature check, or recovered here for
 * `expired`).
 */
async function recordOfPayment(runtime: GateRuntime, state: GateState, reason: "nonce_used" | "expired") {
  const { idemKey, payment, payer } = state;
  if (!idemKey || !payment || !payer) return undefined;
  const found = await runtime.facilitator.result(idemKey, payer);
  if (found.kind !== "found" && found.kind !== "open") return undefined;
  if (found.resourceId.toLowerCase() !== runtime.config.resourceId) return undefined;
  if (!samePayment(payment, found.payment)) return undefined;
  if (found.kind === "found") {
    const receipt = receiptSchema.safeParse(
      (() => {
        try {
          return decodeBase64Json(found.receipt);
        } catch {
          return undefined;
        }
      })(),
    );
    if (!receipt.success || receipt.data.payer !== state.payer) return undefined;
  }
  if (reason === "expired" && (await recoverPayer(payment, runtime.config)) !== state.payer) return undefined;
  return found;
}

/** 422 `request_mismatch`: this payment was made for another request, whose answer is not this one's. */
function refuseOtherRequest(koa: Context): void {
  sendError(
    koa,
    422,
    "request_mismatch",
    "this payment was already used for another request (method, path or body differ); sign a new payment for this one",
  );
}

/** 409 `in_progress`: this payment's call is being served (here, or by another instance of the resource). */
function sendInProgress(koa: Context, retryAfter = "1"): void {
  sendError(koa, 409, "in_progress", "this payment is being processed; retry it shortly for the result", {
    "Retry-After": retryAfter,
  });
}

/** Whether a stored request hash names another request than this one's (none stored: an older gate, replayed). */
const otherRequest = (stored: string | undefined, state: GateState) =>
  stored !== undefined && stored.toLowerCase() !== state.requestHash;

/**
 * Steps 6, 7 and 8: reserve the cap through the facilitator's `/verify`, bound to this request's hash, before anything
 * runs. A refusal is the 402 quote with the reason, except for the same payment again: for another request (method,
 * path or body) → 422 `request_mismatch`; settled already → 200 with the stored response and the same receipt (no
 * second run, no second debit); still in flight here → 409 `in_progress`; its settlement answered 503 here → settle it
 * again; open at the facilitator and not held here (another instance, or a restart): its call being served → 409
 * `in_progress`, its settlement not mined yet → 503 `settlement_pending`. An unreachable facilitator is 503 (nothing
 * was reserved).
 * @example app.use(reservePayment(runtime))
 */
export function reservePayment(runtime: GateRuntime): GateMiddleware {
  const { config, facilitator } = runtime;
  return async (koa, next) => {
    const state = koa.state;
    const hash = requestHash({ method: koa.method, path: koa.path, body: stepValue(state, "rawBody") });
    state.requestHash = hash;
    const payment = { idemKey: stepValue(state, "idemKey"), payer: stepValue(state, "payer") };
    const key = keyOfPayment(payment);
    const inFlight = runtime.inFlight.get(key);
    const owner = inFlight === undefined;
    if (owner) runtime.inFlight.set(key, hash);
    try {
      const verdict = await facilitator.verify(
        stepValue(state, "payment"),
        config.resourceId,
        config.maxTimeoutSeconds - VERIFY_GRACE_SECONDS,
        hash,
      );
      if (verdict.kind === "reserved") return await next();
      if (verdict.kind === "unavailable") {
        return sendError(
          koa,
          503,
          verdict.code,
          `the payment could not be verified now (${verdict.message}); nothing was reserved`,
          {
            "Retry-After": verdict.retryAfter,
          },
        );
      }
      if (verdict.reason === "nonce_used" || verdict.reason === "expired") {
        const known = await recordOfPayment(runtime, state, verdict.reason);
        if (known && otherRequest(known.requestHash, state)) return refuseOtherRequest(koa as Context);
        if (known?.kind === "found")
          return sendPaid(koa, known.response.status, JSON.stringify(known.response.body), known.receipt);
        // Served or settled by a gate that does not hold it here (another instance, or this one before a restart); a
        // settlement kept here is settled again below while the nonce is all that refuses it.
        const keptHere = verdict.reason === "nonce_used" && runtime.pending.get(key);
        if (known?.kind === "open" && owner && !keptHere) {
          if (known.settlement === "pending") return sendSettlementPending(koa as Context, known.retryAfter);
          return sendInProgress(koa as Context, known.retryAfter);
        }
      }
      if (verdict.reason === "nonce_used") {
        if (!owner) {
          if (otherRequest(inFlight, state)) return refuseOtherRequest(koa as Context);
          return sendInProgress(koa as Context);
        }
        const pending = runtime.pending.get(key);
        if (pending && state.payment && samePayment(state.payment, pending.payment)) {
          if (otherRequest(pending.requestHash, state)) return refuseOtherRequest(koa as Context);
          return await answerSettlement(runtime, koa as Context, payment, pending);
        }
      }
      await runtime.sendQuote(koa, verdict.reason);
    } finally {
      if (owner) runtime.inFlight.delete(key);
    }
  };
}
