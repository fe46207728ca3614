import { type GateMiddleware, stepValue } from "./gateRuntime.ts";
import type { SchemaCheck } from "./schemaCheck.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * What is wrong with a handler's answer, or its JSON (re-serialised compactly: the exact bytes the buyer gets and
 * pays for). The checks: a 2xx status, JSON content, the size cap and the schema.
 * @example const checked = await checkResponse(result, check, 65_536)
 */
export async function checkResponse(
  result: { status: number; contentType: string | undefined; body: Buffer; truncated?: boolean },
  check: SchemaCheck,
  maxResponseBytes: number,
): Promise<{ ok: true; json: unknown; text: string } | { ok: false; strikeReason: string; message: string }> {
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
  // A paid call's response is always checked, never refused for the checks waiting.
  const checked = await check(json, { queue: "always" });
  if (checked.kind !== "valid")
    return {
      ok: false,
      strikeReason: "response_schema",
      message: `the response does not match the response schema: ${checked.message}`,
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
 * @example app.use(validateResponse(check, 65_536))
 */
export function validateResponse(check: SchemaCheck, maxResponseBytes: number): GateMiddleware {
  return async (koa, next) => {
    const handlerResult = stepValue(koa.state, "handlerResult");
    const checked = await checkResponse(handlerResult, check, maxResponseBytes);
    if (!checked.ok) {
      koa.state.failure = { strikeReason: checked.strikeReason, message: checked.message };
      return;
    }
    koa.state.response = { status: handlerResult.status, json: checked.json, text: checked.text };
    await next();
  };
}
