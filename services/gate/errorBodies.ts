import type { Logger } from "pino";
import type { GateMiddleware } from "./gateRuntime.ts";
import { sendError } from "./sendError.ts";

/**
 * Outermost step: an unmatched route becomes 404 `not_found`; anything thrown is logged and becomes 500
 * `internal_error` without a stack trace (a bug in the gate, never an answer to bad input).
 * @example app.use(errorBodies(logger))
 */
export function errorBodies(logger: Logger): GateMiddleware {
  return async (koa, next) => {
    try {
      await next();
      if (koa.status === 404 && koa.body == null) sendError(koa, 404, "not_found", "no such route");
    } catch (error) {
      logger.error({ err: (error as Error).message, path: koa.path }, "unexpected error in the gate");
      sendError(koa, 500, "internal_error", "internal error");
    }
  };
}
