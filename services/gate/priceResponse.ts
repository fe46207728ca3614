import { meteredPrice } from "../protocol/price.ts";
import { type GateMiddleware, stepValue } from "./gateRuntime.ts";
import type { ResolvedGateConfig } from "./resolveGateConfig.ts";

/**
 * The metered price of the validated response, from the bytes the buyer gets: `min(cap, ceil((base + perKB * kb) *
 * multiplier))`. (The facilitator debits the flat amount for an `exact` payment.)
 * @example app.use(priceResponse(config))
 */
export function priceResponse(config: ResolvedGateConfig): GateMiddleware {
  return async (koa, next) => {
    koa.state.amount = meteredPrice({
      base: config.pricing.base,
      perKB: config.pricing.perKB,
      computeMultiplier: config.pricing.computeMultiplier,
      cap: config.cap,
      responseBytes: Buffer.byteLength(stepValue(koa.state, "response").text, "utf8"),
    });
    await next();
  };
}
