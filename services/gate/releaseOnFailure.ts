import { type GateMiddleware, type GateRuntime, stepValue } from "./gateRuntime.ts";
import { sendError } from "./sendError.ts";

/**
 * Step 9: once a payment is reserved, every way out but a settle releases it, and nothing is debited. A failed
 * handler run (a later step set `state.failure`) is answered 502 `upstream_failed`; it is released with a
 * `strikeReason` only when the creator's own sample request fails as well (`runtime.reproduce`), so no buyer
 * strikes a creator with an input of its own choosing. An error of the gate itself releases without a strike.
 * @example app.use(releaseOnFailure(runtime))
 */
export function releaseOnFailure(runtime: GateRuntime): GateMiddleware {
  const { config, facilitator, logger } = runtime;
  return async (koa, next) => {
    const idemKey = stepValue(koa.state, "idemKey");
    const key = { idemKey, payer: stepValue(koa.state, "payer"), resourceId: config.resourceId };
    try {
      await next();
    } catch (error) {
      await facilitator.release(key);
      throw error;
    }
    const failure = koa.state.failure;
    if (!failure) return;
    const reproduction = await runtime.reproduce();
    const strike = typeof reproduction === "object" ? reproduction : undefined;
    const released = await facilitator.release({ ...key, strikeReason: strike?.strikeReason });
    if (released.kind === "failed")
      logger.warn({ idemKey, err: released.message }, "release failed; the reservation will expire on its own");
    logger.warn(
      {
        idemKey,
        failure: failure.strikeReason,
        detail: failure.message,
        sample: typeof reproduction === "object" ? reproduction.strikeReason : reproduction,
        strikeReason: strike?.strikeReason,
      },
      strike ? "handler failed, and on its sample request too; released with a strike" : "handler failed; released",
    );
    const verdict = strike
      ? `the resource's own sample request fails too (${strike.strikeReason}): a strike is recorded`
      : reproduction === "passed"
        ? "the resource's own sample request passes: no strike"
        : "the failure could not be reproduced on an idle resource: no strike";
    sendError(
      koa,
      502,
      "upstream_failed",
      `the resource failed (${failure.strikeReason}: ${failure.message}); ${verdict}; nothing was charged`,
    );
  };
}
