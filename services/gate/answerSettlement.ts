import type { Context } from "koa";
import type { GateRuntime, PaymentKey, PendingSettlement } from "./gateRuntime.ts";
import { keyOfPayment } from "./gateRuntime.ts";
import { sendError } from "./sendError.ts";
import { sendPaid } from "./sendPaid.ts";

/**
 * Settles a validated response and answers the buyer: 200 with the receipt; 503 `settlement_pending` with
 * `Retry-After` when the facilitator cannot confirm it yet (kept, so a retry of the same payment settles it again);
 * 409 `settlement_failed` when the facilitator refused it for good (nothing debited, no response given).
 * @example await answerSettlement(runtime, koa, { idemKey, payer }, { amount, response, text, expiresAt, payment, requestHash })
 */
export async function answerSettlement(
  runtime: GateRuntime,
  koa: Context,
  key: PaymentKey,
  settlement: PendingSettlement,
): Promise<void> {
  const { idemKey } = key;
  const outcome = await runtime.facilitator.settle({
    ...key,
    resourceId: runtime.config.resourceId,
    amount: settlement.amount,
    response: settlement.response,
  });
  if (outcome.kind === "settled") {
    runtime.pending.delete(keyOfPayment(key));
    return sendPaid(koa, settlement.response.status, settlement.text, outcome.receipt);
  }
  if (outcome.kind === "refused") {
    runtime.pending.delete(keyOfPayment(key));
    runtime.logger.warn(
      { idemKey, code: outcome.code, reason: outcome.message },
      "settlement refused; nothing debited",
    );
    return sendError(
      koa,
      409,
      "settlement_failed",
      `the payment could not be settled (${outcome.code}); nothing was charged`,
    );
  }
  runtime.pending.keep(keyOfPayment(key), settlement, Math.floor(Date.now() / 1000));
  sendSettlementPending(koa, outcome.kind === "pending" ? outcome.retryAfter : "2");
}

/**
 * 503 `settlement_pending` with `Retry-After`: the debit of this payment is not confirmed yet, and a retry of the same
 * payment gets the result once it is.
 */
export function sendSettlementPending(koa: Context, retryAfter: string): void {
  sendError(
    koa,
    503,
    "settlement_pending",
    "the debit is not confirmed yet; retry the same payment to get the result",
    { "Retry-After": retryAfter },
  );
}
