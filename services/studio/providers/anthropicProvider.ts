import type { ModelProvider } from "./modelProvider.ts";
import { ProviderError, postWithRetries, validAnswer } from "./modelProvider.ts";

/** The Messages API version this adapter speaks. */
export const ANTHROPIC_VERSION = "2023-06-01";

export type AnthropicProviderParameters = {
  /** Base URL, https://api.anthropic.com by default. */
  url?: string | undefined;
  model: string;
  key: string;
  maxTokens?: number;
  timeoutMs?: number;
  retries?: number;
  maxWaitMs?: number;
};

type Block = { type: string; name?: string; input?: unknown; text?: string };

/**
 * A model provider for Anthropic's Messages API: `x-api-key`, `anthropic-version: 2023-06-01`, `max_tokens`, and
 * the answer's schema as a forced tool's `input_schema`. 429, 529 and 5xx are retried with backoff and `Retry-After`;
 * each request times out.
 * @throws {ProviderError} `refusal`, `timeout`, `unreachable`, `http_<status>` or `malformed`.
 * @example const provider = anthropicProvider({ model: "claude-sonnet-4-5", key })
 */
export function anthropicProvider(p: AnthropicProviderParameters): ModelProvider {
  const url = `${(p.url ?? "https://api.anthropic.com").replace(/\/$/, "")}/v1/messages`;
  return {
    name: "anthropic",
    async generate(g) {
      const name = g.name ?? "answer";
      const { status, json } = await postWithRetries({
        url,
        headers: { "x-api-key": p.key, "anthropic-version": ANTHROPIC_VERSION },
        body: {
          model: p.model,
          max_tokens: p.maxTokens ?? 8_192,
          system: g.system,
          messages: g.messages,
          tools: [{ name, description: `Return the ${name}.`, input_schema: g.schema }],
          tool_choice: { type: "tool", name },
        },
        timeoutMs: p.timeoutMs ?? 120_000,
        retries: p.retries ?? 3,
        maxWaitMs: p.maxWaitMs,
      });
      if (status !== 200) {
        const message = (json as { error?: { message?: string } } | undefined)?.error?.message;
        throw new ProviderError(`http_${status}`, `${url} answered ${status}${message ? `: ${message}` : ""}`);
      }
      const body = json as { content?: Block[]; stop_reason?: string } | undefined;
      if (body?.stop_reason === "refusal") throw new ProviderError("refusal", "the model refused to answer");
      const tool = body?.content?.find((block) => block.type === "tool_use" && block.name === name);
      const answer = validAnswer(tool?.input, g.schema);
      if (!answer) throw new ProviderError("malformed", `no valid ${name} tool call in the answer from ${url}`);
      return answer;
    },
  };
}
