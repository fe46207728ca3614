import type { PaymentPayload } from "../protocol/schemas/paymentPayload.ts";
import { decodePaymentHeader } from "../protocol/schemas/paymentPayload.ts";
import { EXACT_FLOOR_MAX_AGE_MS } from "./exactFloorReader.ts";
import type { GateMiddleware, GateRuntime } from "./gateRuntime.ts";
import type { ResolvedGateConfig } from "./resolveGateConfig.ts";

function differs(accepted: Record<string, unknown>, key: string, expected: string): boolean {
  const value = accepted[key];
  return value !== undefined && (typeof value !== "string" || value.toLowerCase() !== expected.toLowerCase());
}

/**
 * Why a decoded payment is not for this gate's resource, network, scheme, escrow and asset, or undefined when it is.
 * An `exact` payment may pay up to `exactCeiling`, the most a quote of its window asked (the cap unless told).
 * @example bindingProblem(payload, config) // 'the authorization is bound to another resource'
 */
export function bindingProblem(
  payload: PaymentPayload,
  config: ResolvedGateConfig,
  exactCeiling: bigint = config.cap,
): string | undefined {
  const accepted = (payload.accepted ?? {}) as Record<string, unknown>;
  if (payload.scheme === "service-escrow") {
    if (payload.authorization.resourceId !== config.resourceId) return "the authorization is bound to another resource";
    if (differs(accepted, "payTo", config.resourceId)) return "accepted.payTo is another resource";
    if (differs(accepted, "escrow", config.escrow)) return "accepted.escrow is another escrow";
    if (differs(accepted, "asset", config.token)) return "accepted.asset is another asset";
    return undefined;
  }
  if (!config.acceptExact) return "this resource does not accept the exact scheme";
  if (payload.authorization.to !== config.escrow) return "an exact payment must pay the escrow";
  if (BigInt(payload.authorization.value) > exactCeiling)
    return "an exact payment must pay the quoted amount, not more";
  if (differs(accepted, "payTo", config.escrow)) return "accepted.payTo is not the escrow";
  if (differs(accepted, "asset", config.token)) return "accepted.asset is another asset";
  const extra = accepted.extra;
  if (
    extra !== null &&
    typeof extra === "object" &&
    differs(extra as Record<string, unknown>, "resourceId", config.resourceId)
  ) {
    return "accepted.extra.resourceId is another resource";
  }
  return undefined;
}

/**
 * The most an `exact` payment to this gate may pay now: the cap, or the highest flat price a quote may have asked
 * within a stock client's window (`maxTimeoutSeconds`, plus the time a reading may stand in quotes), so a payment
 * signed just before the fee fell is still taken.
 * @example exactCeiling(runtime, Date.now()) // 103200n after quoting 103200 at 20 gwei
 */
export function exactCeiling(runtime: Pick<GateRuntime, "config" | "exactFloor">, nowMs: number): bigint {
  const since = nowMs - runtime.config.maxTimeoutSeconds * 1000 - EXACT_FLOOR_MAX_AGE_MS;
  const highest = runtime.exactFloor.highestSince(since);
  return highest !== undefined && highest > runtime.config.cap ? highest : runtime.config.cap;
}

/**
 * Step 5: decodes the payment header (either wire shape) and checks what it is bound to; anything wrong is the
 * 402 quote with `error: invalid_payload`.
 * @example app.use(decodePayment(runtime))
 */
export function decodePayment(runtime: GateRuntime): GateMiddleware {
  return async (koa, next) => {
    const decoded = koa.state.paymentHeader ? decodePaymentHeader(koa.state.paymentHeader) : undefined;
    const ceiling = decoded?.ok && decoded.payload.scheme === "exact" ? exactCeiling(runtime, Date.now()) : undefined;
    if (!decoded?.ok || bindingProblem(decoded.payload, runtime.config, ceiling))
      return runtime.sendQuote(koa, "invalid_payload");
    const payload = decoded.payload;
    koa.state.payment = payload;
    koa.state.idemKey = payload.authorization.nonce;
    koa.state.payer = payload.scheme === "service-escrow" ? payload.authorization.buyer : payload.authorization.from;
    await next();
  };
}
