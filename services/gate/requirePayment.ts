import { HEADER_PAYMENT_SIGNATURE, HEADER_X_PAYMENT } from "../protocol/constants.ts";
import type { GateMiddleware, GateRuntime } from "./gateRuntime.ts";

/**
 * Step 4: without `X-PAYMENT` or `PAYMENT-SIGNATURE`, answers the 402 quote with `error: payment_required`.
 * Two different payments in the two headers are kept for step 5 to refuse.
 * @example app.use(requirePayment(runtime))
 */
export function requirePayment(runtime: GateRuntime): GateMiddleware {
  return async (koa, next) => {
    const values = [koa.get(HEADER_X_PAYMENT), koa.get(HEADER_PAYMENT_SIGNATURE)]
      .map((value) => value.trim())
      .filter(Boolean);
    if (values.length === 0) return runtime.sendQuote(koa, "payment_required");
    koa.state.paymentHeader = new Set(values).size === 1 ? values[0] : "";
    await next();
  };
}
