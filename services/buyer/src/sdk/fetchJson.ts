import { BuyerError } from "./buyerError.ts";

/** An HTTP answer read as JSON (undefined when the body is not JSON). */
export type FetchJsonReturnType = { response: Response; json: unknown };

/**
 * `fetch` with a timeout whose network failures become a `BuyerError` with `code` (`<what>_unavailable`).
 * @example const { response, json } = await fetchJson(`${marketplaceUrl}/resources`, {}, "marketplace")
 */
export async function fetchJson(url: string, init: RequestInit, what: string, timeoutMs = 15_000) {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new BuyerError(`${what}_unavailable`, `${what} at ${url} cannot be reached (${reason})`, { cause: error });
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { response, json } satisfies FetchJsonReturnType;
}

/**
 * The `{ error: { code, message } }` of an answer, or its status when the body has none.
 * @example const { code } = errorOf(json, 404)
 */
export function errorOf(json: unknown, status: number): { code: string; message: string } {
  const error = (json as { error?: { code?: unknown; message?: unknown } | string } | undefined)?.error;
  if (typeof error === "string") return { code: error, message: error };
  return {
    code: typeof error?.code === "string" ? error.code : `http_${status}`,
    message: typeof error?.message === "string" ? error.message : `answered ${status}`,
  };
}
