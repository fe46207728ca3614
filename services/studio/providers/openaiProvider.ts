import type { GenerateParameters, ModelProvider } from "./modelProvider.ts";
import { jsonInText, ProviderError, postWithRetries, validAnswer } from "./modelProvider.ts";

/** How the answer's shape is asked for, from the strictest the server may support to plain prompting. */
export const OPENAI_MODES = ["json_schema", "tool", "prompt"] as const;

/** A way of asking an OpenAI-compatible server for JSON. */
export type OpenAiMode = (typeof OPENAI_MODES)[number];

export type OpenAiProviderParameters = {
  /** Base URL of the chat-completions API, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1. */
  url: string;
  model: string;
  key?: string | undefined;
  timeoutMs?: number;
  retries?: number;
  maxWaitMs?: number;
};

type Choice = {
  message?: {
    content?: string | null;
    refusal?: string | null;
    tool_calls?: { function?: { name?: string; arguments?: string } }[];
  };
  finish_reason?: string;
};

function request(p: OpenAiProviderParameters, g: GenerateParameters, mode: OpenAiMode) {
  const name = g.name ?? "answer";
  const system =
    mode === "prompt"
      ? `${g.system}\n\nAnswer with one JSON object and nothing else. It must validate against this JSON Schema:\n${JSON.stringify(g.schema)}`
      : g.system;
  return {
    model: p.model,
    temperature: 0,
    messages: [{ role: "system", content: system }, ...g.messages],
    ...(mode === "json_schema"
      ? { response_format: { type: "json_schema", json_schema: { name, schema: g.schema, strict: false } } }
      : {}),
    ...(mode === "tool"
      ? {
          tools: [{ type: "function", function: { name, description: `Return the ${name}.`, parameters: g.schema } }],
          tool_choice: { type: "function", function: { name } },
        }
      : {}),
  };
}

/**
 * A model provider for any OpenAI-compatible chat-completions server (OpenAI, Ollama, vLLM, llama.cpp server, LM
 * Studio). It asks for `response_format: json_schema`; a server that refuses it (4xx) or answers JSON that does not
 * validate is asked again with a forced tool call, then by prompting and parsing, and the mode that worked is kept.
 * 429 and 5xx are retried with backoff and `Retry-After`; each request times out.
 * @throws {ProviderError} `refusal`, `timeout`, `unreachable`, `http_<status>` or `malformed` (no mode gave valid JSON).
 * @example const provider = openaiProvider({ url: "http://127.0.0.1:11434/v1", model: "qwen2.5-coder" })
 */
export function openaiProvider(p: OpenAiProviderParameters): ModelProvider & { mode(): OpenAiMode } {
  let first = 0;
  const url = `${p.url.replace(/\/$/, "")}/chat/completions`;
  const headers: Record<string, string> = p.key ? { authorization: `Bearer ${p.key}` } : {};
  return {
    name: "openai",
    mode: () => OPENAI_MODES[first] ?? "prompt",
    async generate(g) {
      let last = "";
      for (let i = first; i < OPENAI_MODES.length; i++) {
        const mode = OPENAI_MODES[i] ?? "prompt";
        const { status, json } = await postWithRetries({
          url,
          headers,
          body: request(p, g, mode),
          timeoutMs: p.timeoutMs ?? 120_000,
          retries: p.retries ?? 3,
          maxWaitMs: p.maxWaitMs,
        });
        if (status === 401 || status === 403)
          throw new ProviderError(`http_${status}`, `${url} refused the key (${status})`);
        if (status >= 400 && status < 500 && mode !== "prompt") {
          last = `${mode}: ${status}`;
          continue;
        }
        if (status !== 200) throw new ProviderError(`http_${status}`, `${url} answered ${status}`);
        const choice = (json as { choices?: Choice[] } | undefined)?.choices?.[0];
        const message = choice?.message;
        if (message?.refusal) throw new ProviderError("refusal", `the model refused: ${message.refusal}`);
        const raw =
          mode === "tool"
            ? message?.tool_calls?.[0]?.function?.arguments
            : mode === "prompt"
              ? jsonInText(message?.content ?? "")
              : (message?.content ?? undefined);
        const answer = validAnswer(raw, g.schema);
        if (answer) {
          first = i;
          return answer;
        }
        last = `${mode}: the answer is not JSON valid against the schema`;
      }
      throw new ProviderError("malformed", `no valid JSON answer from ${url} (${last})`);
    },
  };
}
