import type { Context } from "koa";
import { answerSettlement } from "./answerSettlement.ts";
import { type GateMiddleware, type GateRuntime, stepValue } from "./gateRuntime.ts";

/** Seconds a 503-answered settlement is kept for a retry after its authorization's `validBefore`. */
const PENDING_KEEP_SECONDS = 60;

/**
 * Steps 10 and 11: settle the metered amount with the validated response, then answer 200 with the receipt headers,
 * or 503 `settlement_pending` with `Retry-After`.
 * @example app.use(settleCall(runtime))
 */
export function settleCall(runtime: GateRuntime): GateMiddleware {
  return async (koa) => {
    const payment = stepValue(koa.state, "payment");
    const response = stepValue(koa.state, "response");
    const key = { idemKey: stepValue(koa.state, "idemKey"), payer: stepValue(koa.state, "payer") };
    await answerSettlement(runtime, koa as Context, key, {
      amount: stepValue(koa.state, "amount"),
      response: { status: response.status, contentType: "application/json", body: response.json },
      text: response.text,
      expiresAt: Number(payment.authorization.validBefore) + PENDING_KEEP_SECONDS,
      payment,
      requestHash: stepValue(koa.state, "requestHash"),
    });
  };
}
