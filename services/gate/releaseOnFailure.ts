import { type GateMiddleware, type GateRuntime, stepValue } from "./gateRuntime.ts";
import { sendError } from "./sendError.ts";

/**
 * Step 9: once a payment is reserved, every way out but a settle releases it. A handler at fault (a later step set
 * `state.failure`) means release with a `strikeReason` and 502 `upstream_failed`; an error of the gate itself
 * releases without a strike. Nothing is debited either way.
 * @example app.use(releaseOnFailure(runtime))
 */
export function releaseOnFailure(runtime: GateRuntime): GateMiddleware {
  const { config, facilitator, logger } = runtime;
  return async (koa, next) => {
    const idemKey = stepValue(koa.state, "idemKey");
    try {
      await next();
    } catch (error) {
      await facilitator.release(idemKey, config.resourceId);
      throw error;
    }
    const failure = koa.state.failure;
    if (!failure) return;
    const released = await facilitator.release(idemKey, config.resourceId, failure.strikeReason);
    if (released.kind === "failed")
      logger.warn({ idemKey, err: released.message }, "release failed; the reservation will expire on its own");
    logger.warn(
      { idemKey, strikeReason: failure.strikeReason, detail: failure.message },
      "handler failed; released with a strike",
    );
    sendError(
      koa,
      502,
      "upstream_failed",
      `the resource failed (${failure.strikeReason}: ${failure.message}); nothing was charged`,
    );
  };
}
