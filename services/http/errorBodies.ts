import type Koa from "koa";
import type { Logger } from "pino";
import { HttpError } from "./httpError.ts";

export type ErrorBodiesParameters = {
  logger: Logger;
  /** Maps a service's own expected failures (an unreachable chain, say) to an HttpError; undefined passes. */
  translate?: ((error: unknown) => HttpError | undefined) | undefined;
};

/** A failure as the shared error body says it: status, headers (Retry-After, say) and `{ error: { code, message } }`. */
export type ErrorAnswer = {
  status: number;
  headers: Record<string, string>;
  body: { error: { code: string; message: string } };
};

/**
 * The answer to a failure: an HttpError as itself, a service's own expected failure as `translate` maps it, a body
 * the parser refused as 400/413/415, anything else logged (with `route`) and answered 500 `internal_error` without a
 * stack trace.
 * @example const answer = errorAnswer(error, { logger, translate }, "/verify")
 */
export function errorAnswer(error: unknown, { logger, translate }: ErrorBodiesParameters, route: string): ErrorAnswer {
  const known = error instanceof HttpError ? error : translate?.(error);
  const e = error as { status?: number; expose?: boolean; message?: string };
  const answer = (status: number, code: string, message: string, headers: Record<string, string> = {}) => ({
    status,
    headers,
    body: { error: { code, message } },
  });
  if (known) return answer(known.status, known.code, known.message, known.headers);
  if (e.status && e.status >= 400 && e.status < 500) {
    const status = e.status === 415 ? 415 : e.status === 413 ? 413 : 400;
    const code = status === 415 ? "unsupported_media_type" : status === 413 ? "payload_too_large" : "invalid_request";
    return answer(status, code, e.expose && e.message ? e.message : "the request body could not be read");
  }
  logger.error({ err: e.message, route }, "unexpected error");
  return answer(500, "internal_error", "internal error");
}

/**
 * The error a router left as a bare status (no body): 404 for no route, 405 (its `Allow` header kept) for a method the
 * route does not take, 501 for a method no route takes; undefined for anything else.
 */
function bareRouterError(koa: Koa.Context): HttpError | undefined {
  if (koa.body != null) return undefined;
  if (koa.status === 404) return new HttpError(404, "not_found", "no such route");
  if (koa.status === 405)
    return new HttpError(405, "method_not_allowed", `${koa.path} takes ${koa.response.get("Allow")}`);
  if (koa.status === 501) return new HttpError(501, "method_not_allowed", `no route takes ${koa.method}`);
  return undefined;
}

/**
 * Renders every failure as `{ error: { code, message } }` (errorAnswer), and a router's bare 404, 405 and 501 too.
 * @example app.use(errorBodies({ logger }))
 */
export function errorBodies(p: ErrorBodiesParameters): Koa.Middleware {
  return async (koa, next) => {
    try {
      await next();
      const bare = bareRouterError(koa);
      if (bare) throw bare;
    } catch (error) {
      const { status, headers, body } = errorAnswer(error, p, koa.path);
      koa.status = status;
      koa.set(headers);
      koa.body = body;
    }
  };
}
