import type { ValidateFunction } from "ajv";
import type { GateMiddleware } from "./gateRuntime.ts";
import { schemaMessage } from "./schemaMessage.ts";
import { sendError } from "./sendError.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * Step 3: the body must be UTF-8 JSON, a JSON object, and valid under the resource's request schema; else 400.
 * @example app.use(parseBody(validateRequest))
 */
export function parseBody(validateRequest: ValidateFunction): GateMiddleware {
  return async (koa, next) => {
    let value: unknown;
    try {
      value = JSON.parse(utf8.decode(koa.state.rawBody));
    } catch {
      return sendError(koa, 400, "invalid_request", "the body is not UTF-8 JSON");
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return sendError(koa, 400, "invalid_request", "the body must be a JSON object");
    }
    let valid: boolean;
    try {
      valid = validateRequest(value) === true;
    } catch {
      return sendError(koa, 400, "invalid_request", "the body could not be validated (too deeply nested)");
    }
    if (!valid)
      return sendError(
        koa,
        400,
        "invalid_request",
        `the body does not match the request schema: ${schemaMessage(validateRequest)}`,
      );
    koa.state.body = value as Record<string, unknown>;
    await next();
  };
}
