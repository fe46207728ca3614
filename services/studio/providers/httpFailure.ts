import type { PostAnswer } from "./postWithRetries.ts";
import { ProviderError } from "./providerError.ts";
import { describeServerError } from "./serverError.ts";

/** Which API the server speaks, for the hints about its URL. */
export type ProviderApi = "openai" | "anthropic";

export type HttpFailureParameters = {
  answer: PostAnswer;
  /** The URL as shown (`safeUrl`). */
  url: string;
  api: ProviderApi;
  model: string;
  maxTokens: number;
  /** Values never repeated from the server's message (the API key). */
  secrets: readonly (string | undefined)[];
};

const URL_HINT: Record<ProviderApi, string> = {
  openai:
    "STUDIO_LLM_URL must be the API base that /chat/completions hangs off, usually ending in /v1 (Ollama http://127.0.0.1:11434/v1, llama.cpp http://127.0.0.1:8080/v1, OpenAI https://api.openai.com/v1)",
  anthropic: "STUDIO_LLM_URL must be the API base without /v1 (https://api.anthropic.com by default)",
};

function nextStep(p: HttpFailureParameters, message: string): string {
  const { status, error } = p.answer;
  if (status === 401 || status === 403)
    return p.secrets[0]
      ? "the server refused STUDIO_LLM_KEY: set a valid key for this server"
      : "the server wants an API key: set STUDIO_LLM_KEY";
  if (status === 404)
    return error.code === "model_not_found" || /\bmodel\b/i.test(message)
      ? `the server has no model "${p.model}": set STUDIO_LLM_MODEL to one it serves (GET …/models lists them; Ollama: ollama pull ${p.model})`
      : URL_HINT[p.api];
  if (
    (status === 400 || status === 413) &&
    /context|too long|too large|max_tokens|maximum .*tokens|reduce the length/i.test(message)
  )
    return `the prompt plus max_tokens (${p.maxTokens}) does not fit this model: lower STUDIO_LLM_MAX_TOKENS or use a model with a longer context`;
  if (status === 429)
    return error.code === "insufficient_quota"
      ? "the account behind STUDIO_LLM_KEY has no quota left: add credit or use another key"
      : "the server is rate limiting: wait a minute, then run again";
  if (status === 501) return "the server does not implement this request: use a server or model that does";
  if (status >= 500) return "the model server failed: read its log, then run again";
  return "the server refused the request: its message says why";
}

/**
 * The error for a model server's final non-2xx answer: the URL, the status, the server's own error (bounded, the key
 * never repeated) and what to do next (fix the key, the URL's `/v1`, the model name, `max_tokens`, or wait).
 * @example throw httpFailure({ answer, url, api: "openai", model, maxTokens: 4096, secrets: [key] })
 */
export function httpFailure(p: HttpFailureParameters): ProviderError {
  const message = describeServerError(p.answer.error, p.secrets);
  return new ProviderError(`http_${p.answer.status}`, `${p.url} answered ${p.answer.status}: ${message}`, {
    url: p.url,
    status: p.answer.status,
    next: nextStep(p, message),
  });
}
