import type Koa from "koa";
import type { Logger } from "pino";
import { HttpError } from "./httpError.ts";

export type ErrorBodiesParameters = {
  logger: Logger;
  /** Maps a service's own expected failures (an unreachable chain, say) to an HttpError; undefined passes. */
  translate?: ((error: unknown) => HttpError | undefined) | undefined;
};

/**
 * Renders every failure as `{ error: { code, message } }`: an HttpError as itself, an unmatched route as 404
 * `not_found`, a body the parser refused as 400/413/415, anything else logged and answered 500 `internal_error`
 * without a stack trace.
 * @example app.use(errorBodies({ logger }))
 */
export function errorBodies({ logger, translate }: ErrorBodiesParameters): Koa.Middleware {
  return async (koa, next) => {
    try {
      await next();
      if (koa.status === 404 && koa.body == null) throw new HttpError(404, "not_found", "no such route");
    } catch (error) {
      const known = error instanceof HttpError ? error : translate?.(error);
      const e = error as { status?: number; expose?: boolean; message?: string };
      if (known) {
        koa.status = known.status;
        koa.set(known.headers);
        koa.body = { error: { code: known.code, message: known.message } };
      } else if (e.status && e.status >= 400 && e.status < 500) {
        koa.status = e.status === 415 ? 415 : e.status === 413 ? 413 : 400;
        const code =
          koa.status === 415 ? "unsupported_media_type" : koa.status === 413 ? "payload_too_large" : "invalid_request";
        koa.body = {
          error: { code, message: e.expose && e.message ? e.message : "the request body could not be read" },
        };
      } else {
        logger.error({ err: e.message, route: koa.path }, "unexpected error");
        koa.status = 500;
        koa.body = { error: { code: "internal_error", message: "internal error" } };
      }
    }
  };
}
