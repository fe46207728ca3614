import type { GateMiddleware } from "./gateRuntime.ts";
import { sendError } from "./sendError.ts";

/**
 * Step 1: the request must declare `Content-Type: application/json` (parameters such as charset allowed), else 415.
 * @example app.use(requireJsonContentType())
 */
export function requireJsonContentType(): GateMiddleware {
  return async (koa, next) => {
    if (koa.request.type !== "application/json") {
      return sendError(koa, 415, "unsupported_media_type", "Content-Type must be application/json");
    }
    const charset = koa.request.charset;
    if (charset && charset !== "utf-8" && charset !== "utf8") {
      return sendError(koa, 415, "unsupported_media_type", "the body must be UTF-8 JSON");
    }
    await next();
  };
}
