import { isContentEncoded } from "../http/readJsonBody.ts";
import type { GateMiddleware } from "./gateRuntime.ts";
import { sendError } from "./sendError.ts";

/**
 * Step 1: the request must declare `Content-Type: application/json` with no charset or UTF-8 (media type and charset
 * in any case, as RFC 9110 says they are compared: `application/json; charset=UTF-8` is what many clients send), and
 * must not be content-encoded (a gzip body was read as bytes and refused as "not UTF-8 JSON"), else 415.
 * @example app.use(requireJsonContentType())
 */
export function requireJsonContentType(): GateMiddleware {
  return async (koa, next) => {
    if (koa.request.type.trim().toLowerCase() !== "application/json") {
      return sendError(koa, 415, "unsupported_media_type", "Content-Type must be application/json");
    }
    const charset = koa.request.charset.toLowerCase();
    if (charset && charset !== "utf-8" && charset !== "utf8") {
      return sendError(koa, 415, "unsupported_media_type", "the body must be UTF-8 JSON");
    }
    if (isContentEncoded(koa.req.headers)) {
      return sendError(koa, 415, "unsupported_media_type", "the body must be sent without Content-Encoding");
    }
    await next();
  };
}
