/** What {@link fetchJson} returns: the parsed body and the response headers, or why there is none. */
export type FetchJsonReturnType =
  | { ok: true; body: unknown; headers: Headers }
  | { ok: false; reason: string; cause?: unknown };

/**
 * GETs a URL and parses its JSON body, with a timeout; a network failure, a non-2xx status or a body that is not
 * JSON comes back as a reason, never as an exception.
 * @example const page = await fetchJson("http://127.0.0.1:4000/resources?limit=1000&offset=0")
 */
export async function fetchJson(url: string, timeoutMs = 15_000): Promise<FetchJsonReturnType> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (cause) {
    return { ok: false, reason: `unreachable (${describe(cause)})`, cause };
  }
  const text = await response.text().catch(() => "");
  if (!response.ok) return { ok: false, reason: `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ""}` };
  try {
    return { ok: true, body: JSON.parse(text), headers: response.headers };
  } catch (cause) {
    return { ok: false, reason: "the body is not JSON", cause };
  }
}

function describe(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = cause.cause instanceof Error ? cause.cause.message : undefined;
    return inner ? `${cause.message}: ${inner}` : cause.message;
  }
  return String(cause);
}
