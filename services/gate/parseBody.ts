import { MAX_BODY_DEPTH, nestedDeeperThan } from "../http/jsonDepth.ts";
import type { GateMiddleware } from "./gateRuntime.ts";
import type { SchemaCheck } from "./schemaCheck.ts";
import { sendError } from "./sendError.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * Step 3: the body must be UTF-8 JSON nested at most MAX_BODY_DEPTH deep, a JSON object, and valid under the
 * resource's request schema; else 400 (and 503 `endpoint_busy` when too many checks of a slow schema wait,
 * schemaCheck.ts). Nothing is reserved before it.
 * @example app.use(parseBody(checkRequest))
 */
export function parseBody(checkRequest: SchemaCheck): GateMiddleware {
  return async (koa, next) => {
    let value: unknown;
    try {
      const text = utf8.decode(koa.state.rawBody);
      value = nestedDeeperThan(text, MAX_BODY_DEPTH) ? undefined : JSON.parse(text);
    } catch {
      return sendError(koa, 400, "invalid_request", "the body is not UTF-8 JSON");
    }
    if (value === undefined)
      return sendError(koa, 400, "invalid_request", `the body nests arrays and objects deeper than ${MAX_BODY_DEPTH}`);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return sendError(koa, 400, "invalid_request", "the body must be a JSON object");
    }
    const checked = await checkRequest(value);
    if (checked.kind === "busy")
      return sendError(koa, 503, "endpoint_busy", `the body could not be checked now (${checked.message})`, {
        "Retry-After": "1",
      });
    if (checked.kind === "too_deep")
      return sendError(koa, 400, "invalid_request", "the body could not be validated (too deeply nested)");
    if (checked.kind === "timeout")
      return sendError(koa, 400, "invalid_request", `the body could not be validated: ${checked.message}`);
    if (checked.kind === "invalid")
      return sendError(koa, 400, "invalid_request", `the body does not match the request schema: ${checked.message}`);
    koa.state.body = value as Record<string, unknown>;
    await next();
  };
}
