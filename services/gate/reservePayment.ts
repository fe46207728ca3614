import type { Context } from "koa";
import { decodeBase64Json } from "../protocol/base64.ts";
import { samePayment } from "../protocol/samePayment.ts";
import { receiptSchema } from "../protocol/schemas/receipt.ts";
import { answerSettlement } from "./answerSettlement.ts";
import { VERIFY_GRACE_SECONDS } from "./gateConfig.ts";
import { type GateMiddleware, type GateRuntime, type GateState, stepValue } from "./gateRuntime.ts";
import { recoverPayer } from "./recoverPayer.ts";
import { sendError } from "./sendError.ts";
import { sendPaid } from "./sendPaid.ts";

/**
 * The stored result of an already settled payment, when it is this very payment: same resource, the same
 * authorization and signature byte for byte as the one settled (a second authorization that reuses the nonce, even
 * by the same buyer, is not the same payment), same payer, and a signature by that payer (proven by the
 * facilitator's `nonce_used`, which it answers only after the signature check, or recovered here for `expired`).
 */
async function settledResult(runtime: GateRuntime, state: GateState, reason: "nonce_used" | "expired") {
  const { idemKey, payment } = state;
  if (!idemKey || !payment) return undefined;
  const found = await runtime.facilitator.result(idemKey);
  if (found.kind !== "found" || found.resourceId.toLowerCase() !== runtime.config.resourceId) return undefined;
  if (!samePayment(payment, found.payment)) return undefined;
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
  if (reason === "expired" && (await recoverPayer(payment, runtime.config)) !== state.payer) return undefined;
  return found;
}

/**
 * Steps 6, 7 and 8: reserve the cap through the facilitator's `/verify` before anything runs. A refusal is the 402
 * quote with the reason, except for the same payment again: settled already → 200 with the stored response and the
 * same receipt (no second run, no second debit); still in flight here → 409 `in_progress`; its settlement answered
 * 503 here → settle it again. An unreachable facilitator is 503 (nothing was reserved).
 * @example app.use(reservePayment(runtime))
 */
export function reservePayment(runtime: GateRuntime): GateMiddleware {
  const { config, facilitator } = runtime;
  return async (koa, next) => {
    const state = koa.state;
    const idemKey = stepValue(state, "idemKey");
    const owner = !runtime.inFlight.has(idemKey);
    if (owner) runtime.inFlight.add(idemKey);
    try {
      const verdict = await facilitator.verify(
        stepValue(state, "payment"),
        config.resourceId,
        config.maxTimeoutSeconds - VERIFY_GRACE_SECONDS,
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
        const settled = await settledResult(runtime, state, verdict.reason);
        if (settled)
          return sendPaid(koa, settled.response.status, JSON.stringify(settled.response.body), settled.receipt);
      }
      if (verdict.reason === "nonce_used") {
        if (!owner)
          return sendError(koa, 409, "in_progress", "this payment is being processed; retry it shortly for the result");
        const pending = runtime.pending.get(idemKey);
        if (pending && state.payment && samePayment(state.payment, pending.payment))
          return await answerSettlement(runtime, koa as Context, idemKey, pending);
      }
      runtime.sendQuote(koa, verdict.reason);
    } finally {
      if (owner) runtime.inFlight.delete(idemKey);
    }
  };
}
