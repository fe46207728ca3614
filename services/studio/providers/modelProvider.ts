import { Ajv } from "ajv";

/** One turn of a conversation with a model. */
export type ModelMessage = { role: "user" | "assistant"; content: string };

/** What every model provider is asked: a system prompt, the conversation, and the JSON Schema of the answer. */
export type GenerateParameters = {
  system: string;
  messages: ModelMessage[];
  schema: Record<string, unknown>;
  /** A name for the answer's shape (the tool's or the json_schema's name). */
  name?: string;
};

/** A model behind one interface: `generate` answers a JSON object valid against `schema`. */
export type ModelProvider = {
  name: string;
  generate(p: GenerateParameters): Promise<Record<string, unknown>>;
};

/** A provider failed for good: `code` says why (`refusal`, `timeout`, `http_<status>`, `malformed`, `unreachable`). */
export class ProviderError extends Error {
  override name = "ProviderError";
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });

/**
 * The answer as a JSON object valid against `schema`, or undefined (not JSON, not an object, or invalid).
 * @example validAnswer('{"source":"x"}', { type: "object" }) // { source: "x" }
 */
export function validAnswer(value: unknown, schema: Record<string, unknown>): Record<string, unknown> | undefined {
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  return ajv.validate(schema, parsed) ? (parsed as Record<string, unknown>) : undefined;
}

/**
 * The first JSON object in a model's free text (inside a ``` fence or bare), for servers that enforce no schema.
 * @example jsonInText('Here: ```json\n{"a":1}\n```') // '{"a":1}'
 */
export function jsonInText(text: string): string | undefined {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n?```/.exec(text)?.[1];
  if (fenced) return fenced.trim();
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  return start >= 0 && end > start ? text.slice(start, end + 1) : undefined;
}

export type PostWithRetriesParameters = {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  timeoutMs: number;
  retries: number;
  /** Statuses worth another try (429 and 5xx by default). */
  retryable?: (status: number) => boolean;
  /** Longest wait between tries, whatever `Retry-After` says. */
  maxWaitMs?: number;
};

/**
 * POSTs JSON, retrying 429 and 5xx answers and timeouts with exponential backoff (or the server's `Retry-After`,
 * capped), and answers the final status and JSON body.
 * @throws {ProviderError} `timeout` or `unreachable` after the last try.
 * @example const { status, json } = await postWithRetries({ url, headers, body, timeoutMs: 60_000, retries: 3 })
 */
export async function postWithRetries(p: PostWithRetriesParameters): Promise<{ status: number; json: unknown }> {
  const retryable = p.retryable ?? ((status: number) => status === 429 || status >= 500);
  const maxWait = p.maxWaitMs ?? 30_000;
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(p.url, {
        method: "POST",
        headers: { "content-type": "application/json", ...p.headers },
        body: JSON.stringify(p.body),
        signal: AbortSignal.timeout(p.timeoutMs),
      });
    } catch (error) {
      const timedOut = (error as Error).name === "TimeoutError";
      if (attempt < p.retries) {
        await new Promise((r) => setTimeout(r, Math.min(maxWait, 250 * 2 ** attempt)));
        continue;
      }
      throw timedOut
        ? new ProviderError("timeout", `no answer from ${p.url} within ${p.timeoutMs} ms (${attempt + 1} tries)`)
        : new ProviderError("unreachable", `${p.url}: ${(error as Error).message}`);
    }
    const text = await response.text();
    if (retryable(response.status) && attempt < p.retries) {
      const after = Number(response.headers.get("retry-after"));
      const wait = Number.isFinite(after) && after >= 0 ? after * 1000 : 250 * 2 ** attempt;
      await new Promise((r) => setTimeout(r, Math.min(maxWait, wait)));
      continue;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, json };
  }
}
