/** A JSON answer: its status and parsed body (undefined when the body is not JSON). */
export type JsonAnswer = { status: number; body: Record<string, unknown> | undefined };

/**
 * Sends JSON with a bearer token and reads the JSON answer; a network failure rejects.
 * @example const { status, body } = await requestJson("POST", `${host}/deployments`, deployment, token)
 */
export async function requestJson(
  method: "POST" | "DELETE" | "GET",
  url: string,
  body: unknown,
  token: string,
  timeoutMs = 60_000,
): Promise<JsonAnswer> {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { status: response.status, body: undefined };
  }
}

/** The `error.message` (or the status) of an error answer, for a creator to read. */
export function errorText(answer: JsonAnswer): string {
  const error = answer.body?.error as { code?: string; message?: string } | undefined;
  return error ? `${answer.status} ${error.code}: ${error.message}` : `status ${answer.status}`;
}
