import { describeNetworkError } from "./describeNetworkError.ts";
import { ProviderError } from "./providerError.ts";
import { safeUrl } from "./safeUrl.ts";
import type { ServerError } from "./serverError.ts";
import { readServerError } from "./serverError.ts";

/** One overall deadline for a stage's model work: every try, wait and fallback of it ends by `at`. */
export type Deadline = { at: number; ms: number };

/**
 * A deadline `ms` from now.
 * @example const deadline = deadlineIn(120_000)
 */
export function deadlineIn(ms: number): Deadline {
  return { at: Date.now() + ms, ms };
}

/** What the server answered: status, headers, the body as text and JSON (when it is JSON), and its error if any. */
export type PostAnswer = { status: number; headers: Headers; body: string; json: unknown; error: ServerError };

/** How the studio raises the deadline, named in the timeout's next step. */
export const DEADLINE_SETTING = "STUDIO_LLM_DEADLINE_SECONDS (or --llm-deadline on the CLI)";

const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504, 529]);

/**
 * Whether an answer is worth another try: 408, 429 (not OpenAI's `insufficient_quota`, which waiting does not fix),
 * 500, 502, 503, 504 and Anthropic's 529; never 501 or another 4xx.
 * @example isRetryable({ status: 501, … }) // false
 */
export function isRetryable(answer: PostAnswer): boolean {
  return RETRYABLE_STATUSES.has(answer.status) && answer.error.code !== "insufficient_quota";
}

export type PostWithRetriesParameters = {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  deadline: Deadline;
  /** Further tries after the first, as long as the deadline allows. */
  retries: number;
  /** Statuses worth another try (`isRetryable` by default). */
  retryable?: (answer: PostAnswer) => boolean;
  /** Longest wait between tries, whatever `Retry-After` says. */
  maxWaitMs?: number;
};

async function pause(ms: number) {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * POSTs JSON and reads the whole answer within one overall deadline, retrying what may pass (429, 5xx but 501, a
 * reset or closed connection) with exponential backoff or the server's `Retry-After`, never past the deadline.
 * @throws {ProviderError} `timeout` (the deadline passed), `unreachable` (connection refused, host not found, …) or
 * `interrupted` (the connection closed while the answer was read), each naming the URL.
 * @example const answer = await postWithRetries({ url, headers, body, deadline: deadlineIn(120_000), retries: 3 })
 */
export async function postWithRetries(p: PostWithRetriesParameters): Promise<PostAnswer> {
  const retryable = p.retryable ?? isRetryable;
  const maxWait = p.maxWaitMs ?? 30_000;
  const shown = safeUrl(p.url);
  const timeout = (tries: number) =>
    new ProviderError(
      "timeout",
      `no complete answer from ${shown} within the stage's deadline of ${p.deadline.ms / 1000} s (${tries} ${tries === 1 ? "try" : "tries"})`,
      { url: shown, next: `a slow model needs a longer deadline: raise ${DEADLINE_SETTING}` },
    );
  for (let attempt = 0; ; attempt++) {
    const remaining = p.deadline.at - Date.now();
    if (remaining <= 0) throw timeout(attempt);
    const backoff = 250 * 2 ** attempt;
    let phase: "connect" | "read" = "connect";
    try {
      const response = await fetch(p.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...p.headers },
        body: JSON.stringify(p.body),
        signal: AbortSignal.timeout(remaining),
      });
      phase = "read";
      const body = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const answer = { status: response.status, headers: response.headers, body, json, error: {} as ServerError };
      if (response.status >= 400) answer.error = readServerError(json, body);
      const after = Number(response.headers.get("retry-after") ?? Number.NaN);
      const wait = Math.min(maxWait, Number.isFinite(after) && after >= 0 ? after * 1000 : backoff);
      if (!retryable(answer) || attempt >= p.retries || Date.now() + wait >= p.deadline.at) return answer;
      await pause(wait);
    } catch (error) {
      if ((error as Error).name === "TimeoutError") throw timeout(attempt + 1);
      const failure = describeNetworkError(error, p.url);
      const last = !failure.retry || attempt >= p.retries || Date.now() + backoff >= p.deadline.at;
      if (!last) {
        await pause(backoff);
        continue;
      }
      const tries = `${attempt + 1} ${attempt === 0 ? "try" : "tries"}`;
      if (phase === "read")
        throw new ProviderError("interrupted", `the answer from ${shown} was cut off: ${failure.reason} (${tries})`, {
          url: shown,
          cause: error,
          next: "check the model server's log (it may have crashed or run out of memory), then run again",
        });
      throw new ProviderError("unreachable", `cannot reach ${shown}: ${failure.reason} (${tries})`, {
        url: shown,
        cause: error,
        next: "start the model server, or set STUDIO_LLM_URL to where it listens",
      });
    }
  }
}
