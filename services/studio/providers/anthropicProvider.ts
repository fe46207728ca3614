import { httpFailure } from "./httpFailure.ts";
import type { ModelProvider, ProviderLimits } from "./modelProvider.ts";
import { checkAnswer, DEFAULT_DEADLINE_MS, DEFAULT_MAX_TOKENS } from "./modelProvider.ts";
import { deadlineIn, postWithRetries } from "./postWithRetries.ts";
import { ProviderError } from "./providerError.ts";
import { safeUrl } from "./safeUrl.ts";
import { truncatedAnswer } from "./truncatedAnswer.ts";

/** The Messages API version this adapter speaks. */
export const ANTHROPIC_VERSION = "2023-06-01";

export type AnthropicProviderParameters = ProviderLimits & {
  /** Base URL, https://api.anthropic.com by default. */
  url?: string | undefined;
  model: string;
  key: string;
};

type Block = { type: string; name?: string; input?: unknown; text?: string };

/**
 * A model provider for Anthropic's Messages API: `x-api-key`, `anthropic-version: 2023-06-01`, `max_tokens`, and
 * the answer's schema as a forced tool's `input_schema`. 429, 529 and 5xx (not 501) are retried with backoff and
 * `Retry-After` within one deadline per `generate`; an error answer is reported with Anthropic's
 * `{ type: "error", error: { type, message } }` and a next step; `stop_reason: "max_tokens"` is `truncated`.
 * @throws {ProviderError} `refusal`, `truncated`, `timeout`, `unreachable`, `interrupted`, `http_<status>` or
 * `malformed`.
 * @example const provider = anthropicProvider({ model: "claude-sonnet-4-5", key })
 */
export function anthropicProvider(p: AnthropicProviderParameters): ModelProvider {
  const url = `${(p.url ?? "https://api.anthropic.com").replace(/\/$/, "")}/v1/messages`;
  const shown = safeUrl(url);
  const maxTokens = p.maxTokens ?? DEFAULT_MAX_TOKENS;
  return {
    name: "anthropic",
    model: p.model,
    async generate(g) {
      const name = g.name ?? "answer";
      const answer = await postWithRetries({
        url,
        headers: { "x-api-key": p.key, "anthropic-version": ANTHROPIC_VERSION },
        body: {
          model: p.model,
          max_tokens: maxTokens,
          system: g.system,
          messages: g.messages,
          tools: [{ name, description: `Return the ${name}.`, input_schema: g.schema }],
          tool_choice: { type: "tool", name },
        },
        deadline: deadlineIn(p.deadlineMs ?? DEFAULT_DEADLINE_MS),
        retries: p.retries ?? 3,
        maxWaitMs: p.maxWaitMs,
      });
      if (answer.status !== 200)
        throw httpFailure({ answer, url: shown, api: "anthropic", model: p.model, maxTokens, secrets: [p.key] });
      const body = answer.json as { content?: Block[]; stop_reason?: string } | undefined;
      if (body?.stop_reason === "refusal")
        throw new ProviderError("refusal", "the model refused to answer", {
          url: shown,
          next: "rephrase the sentence, or use another model (STUDIO_LLM_MODEL)",
        });
      if (body?.stop_reason === "max_tokens") throw truncatedAnswer(shown, maxTokens, 'stop_reason "max_tokens"');
      const tool = body?.content?.find((block) => block.type === "tool_use" && block.name === name);
      const checked = tool ? checkAnswer(tool.input, g.schema) : { problem: `no ${name} tool call` };
      if ("answer" in checked) return checked.answer;
      throw new ProviderError("malformed", `no valid answer from ${shown}: ${checked.problem}`, {
        url: shown,
        next: "run again, or use another model (STUDIO_LLM_MODEL)",
      });
    },
  };
}
