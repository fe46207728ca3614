import type { ValidateFunction } from "ajv";
import { type GateMiddleware, stepValue } from "./gateRuntime.ts";
import { schemaMessage } from "./schemaMessage.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * What is wrong with a handler's answer, or its JSON (re-serialised compactly: the exact bytes the buyer gets and
 * pays for). The checks: a 2xx status, JSON content, the size cap and the schema.
 * @example const checked = checkResponse(result, validate, 65_536)
 */
export function checkResponse(
  result: { status: number; contentType: string | undefined; body: Buffer; truncated?: boolean },
  validate: ValidateFunction,
  maxResponseBytes: number,
): { ok: true; json: unknown; text: string } | { ok: false; strikeReason: string; message: string } {
  if (!Number.isInteger(result.status) || result.status < 200 || result.status > 299) {
    return { ok: false, strikeReason: "handler_error", message: `the handler answered ${result.status}` };
  }
  const type = (result.contentType ?? "").split(";", 1)[0]?.trim().toLowerCase() ?? "";
  if (type !== "application/json")
    return {
      ok: false,
      strikeReason: "invalid_response",
      message: `content type ${type || "none"}, not application/json`,
    };
  if (result.truncated || result.body.length > maxResponseBytes) {
    return { ok: false, strikeReason: "response_too_large", message: `the response is over ${maxResponseBytes} bytes` };
  }
  let json: unknown;
  try {
    json = JSON.parse(utf8.decode(result.body));
  } catch {
    return { ok: false, strikeReason: "invalid_response", message: "the response is not UTF-8 JSON" };
  }
  let valid: boolean;
  try {
    valid = validate(json) === true;
  } catch {
    valid = false;
  }
  if (!valid)
    return {
      ok: false,
      strikeReason: "response_schema",
      message: `the response does not match the response schema: ${schemaMessage(validate)}`,
    };
  let text: string;
  try {
    text = JSON.stringify(json);
  } catch {
    return {
      ok: false,
      strikeReason: "invalid_response",
      message: "the response is too deeply nested to re-serialise",
    };
  }
  if (Buffer.byteLength(text, "utf8") > maxResponseBytes) {
    return { ok: false, strikeReason: "response_too_large", message: `the response is over ${maxResponseBytes} bytes` };
  }
  return { ok: true, json, text };
}

/**
 * Validates the handler's answer: status 2xx, `application/json`, at most `maxResponseBytes`, valid under the
 * resource's response schema. A failure is recorded for `releaseOnFailure` (release with a strike, 502).
 * @example app.use(validateResponse(validate, 65_536))
 */
export function validateResponse(validate: ValidateFunction, maxResponseBytes: number): GateMiddleware {
  return async (koa, next) => {
    const handlerResult = stepValue(koa.state, "handlerResult");
    const checked = checkResponse(handlerResult, validate, maxResponseBytes);
    if (!checked.ok) {
      koa.state.failure = { strikeReason: checked.strikeReason, message: checked.message };
      return;
    }
    koa.state.response = { status: handlerResult.status, json: checked.json, text: checked.text };
    await next();
  };
}
