import { ProviderError } from "./providerError.ts";

/**
 * The error for an answer the model stopped at `max_tokens` (OpenAI's `finish_reason: "length"`, Anthropic's
 * `stop_reason: "max_tokens"`): cut JSON is not a wrong answer but a short limit.
 * @example throw truncatedAnswer(url, 4096, 'finish_reason "length"')
 */
export function truncatedAnswer(url: string, maxTokens: number, reason: string): ProviderError {
  return new ProviderError(
    "truncated",
    `the model's answer from ${url} stopped at max_tokens (${maxTokens}; ${reason})`,
    {
      url,
      next: `raise STUDIO_LLM_MAX_TOKENS (now ${maxTokens}) as far as the model allows`,
    },
  );
}
