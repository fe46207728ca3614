import type { GateMiddleware } from "./gateRuntime.ts";
import { sendError } from "./sendError.ts";

/** Seconds a buyer is asked to wait before it sends a call again to an endpoint at its bound. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * Step 5b: bounds the paid calls of this resource in progress at once, each counted from here (before its reservation)
 * until its answer. One more is answered 503 `endpoint_busy` with `Retry-After` before anything is reserved, run or
 * charged, so one popular resource cannot take every sandbox and facilitator slot of the host. No bound: no check.
 * @example app.use(admitCall(64))
 */
export function admitCall(limit: number | undefined): GateMiddleware {
  let admitted = 0;
  return async (koa, next) => {
    if (limit === undefined) return next();
    if (admitted >= limit) {
      return sendError(
        koa,
        503,
        "endpoint_busy",
        `this resource is answering ${limit} paid calls already; nothing was reserved or charged, retry shortly`,
        { "Retry-After": String(BUSY_RETRY_AFTER_SECONDS) },
      );
    }
    admitted++;
    try {
      await next();
    } finally {
      admitted--;
    }
  };
}
