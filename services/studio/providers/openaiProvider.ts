import { httpFailure } from "./httpFailure.ts";
import type { GenerateParameters, ModelProvider, ProviderLimits } from "./modelProvider.ts";
import { checkAnswer, DEFAULT_DEADLINE_MS, DEFAULT_MAX_TOKENS, jsonInText } from "./modelProvider.ts";
import type { PostAnswer } from "./postWithRetries.ts";
import { deadlineIn, isRetryable, postWithRetries } from "./postWithRetries.ts";
import { ProviderError } from "./providerError.ts";
import { safeUrl } from "./safeUrl.ts";
import { describeServerError } from "./serverError.ts";
import { truncatedAnswer } from "./truncatedAnswer.ts";

/** How the answer's shape is asked for, from the strictest the server may support to plain prompting. */
export const OPENAI_MODES = ["json_schema", "tool", "prompt"] as const;

/** A way of asking an OpenAI-compatible server for JSON. */
export type OpenAiMode = (typeof OPENAI_MODES)[number];

export type OpenAiProviderParameters = ProviderLimits & {
  /** Base URL of the chat-completions API, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1. */
  url: string;
  model: string;
  key?: string | undefined;
};

/** Request fields a server refused and how the provider asks instead (OpenAI's reasoning models). */
type Fields = { tokens: "max_tokens" | "max_completion_tokens"; temperature: boolean };

type Choice = {
  message?: {
    content?: string | null;
    refusal?: string | null;
    tool_calls?: { function?: { name?: string; arguments?: unknown } }[];
  };
  finish_reason?: string | null;
};

const SCHEMA_WORDS = /response_format|json_schema|json schema|structured output|grammar|guided/i;
const TOOL_WORDS = /\btools?\b|tool_choice|tool use|function call|--jinja/i;

/**
 * Whether an error answer says the server cannot take this way of asking (not that the request is wrong otherwise):
 * OpenAI's "'response_format' of type 'json_schema' is not supported with this model", llama.cpp's 500 "tools param
 * requires --jinja flag" or an old build's "response_format type must be …", Ollama's "… does not support tools",
 * vLLM's "features not supported by xgrammar".
 */
function refusesMode(mode: OpenAiMode, answer: PostAnswer): boolean {
  if (![400, 422, 500, 501].includes(answer.status) || mode === "prompt") return false;
  const { message = "", param = "" } = answer.error;
  const schema = param === "response_format" || SCHEMA_WORDS.test(message);
  if (mode === "json_schema") return schema;
  return schema || param === "tools" || param === "tool_choice" || TOOL_WORDS.test(message);
}

/** Switches a request field the server refused for this model (`max_tokens`, `temperature`); false if none. */
function adaptFields(fields: Fields, answer: PostAnswer): boolean {
  if (answer.status !== 400) return false;
  const { message = "", param } = answer.error;
  if (fields.tokens === "max_tokens" && (param === "max_tokens" || /max_completion_tokens/.test(message))) {
    fields.tokens = "max_completion_tokens";
    return true;
  }
  if (fields.temperature && (param === "temperature" || /'temperature'/.test(message))) {
    fields.temperature = false;
    return true;
  }
  return false;
}

function request(p: OpenAiProviderParameters, g: GenerateParameters, mode: OpenAiMode, fields: Fields) {
  const name = g.name ?? "answer";
  const system =
    mode === "prompt"
      ? `${g.system}\n\nAnswer with one JSON object and nothing else. It must validate against this JSON Schema:\n${JSON.stringify(g.schema)}`
      : g.system;
  return {
    model: p.model,
    ...(fields.temperature ? { temperature: 0 } : {}),
    [fields.tokens]: p.maxTokens ?? DEFAULT_MAX_TOKENS,
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

function rawAnswer(choice: Choice | undefined, mode: OpenAiMode, name: string): unknown {
  const message = choice?.message;
  if (mode === "tool") {
    const calls = message?.tool_calls ?? [];
    return (calls.find((c) => c.function?.name === name) ?? calls[0])?.function?.arguments;
  }
  return mode === "prompt" ? jsonInText(message?.content ?? "") : (message?.content ?? undefined);
}

/**
 * A model provider for any OpenAI-compatible chat-completions server (OpenAI, Ollama, vLLM, llama.cpp server, LM
 * Studio). It asks for `response_format: json_schema`; a server that says it cannot (by its error's `param` or
 * message), or answers JSON that does not validate, is asked again with a forced tool call, then by prompting and
 * parsing, and the mode that worked is kept. Any other error is reported with the server's message and a next step.
 * `max_tokens` is always sent (`max_completion_tokens` for models that refuse it); an answer stopped by it is
 * `truncated`. One deadline bounds each `generate`: every try, `Retry-After` wait and fallback.
 * @throws {ProviderError} `refusal`, `truncated`, `timeout`, `unreachable`, `interrupted`, `http_<status>` or
 * `malformed` (no mode gave valid JSON).
 * @example const provider = openaiProvider({ url: "http://127.0.0.1:11434/v1", model: "qwen2.5-coder" })
 */
export function openaiProvider(p: OpenAiProviderParameters): ModelProvider & { mode(): OpenAiMode } {
  let first = 0;
  const fields: Fields = { tokens: "max_tokens", temperature: true };
  const url = `${p.url.replace(/\/$/, "")}/chat/completions`;
  const shown = safeUrl(url);
  const maxTokens = p.maxTokens ?? DEFAULT_MAX_TOKENS;
  const headers: Record<string, string> = p.key ? { authorization: `Bearer ${p.key}` } : {};
  return {
    name: "openai",
    model: p.model,
    mode: () => OPENAI_MODES[first] ?? "prompt",
    async generate(g) {
      const deadline = deadlineIn(p.deadlineMs ?? DEFAULT_DEADLINE_MS);
      const tried: string[] = [];
      for (let i = first; i < OPENAI_MODES.length; ) {
        const mode = OPENAI_MODES[i] ?? "prompt";
        const answer = await postWithRetries({
          url,
          headers,
          body: request(p, g, mode, fields),
          deadline,
          retries: p.retries ?? 3,
          maxWaitMs: p.maxWaitMs,
          retryable: (a) => isRetryable(a) && !refusesMode(mode, a),
        });
        if (answer.status >= 400) {
          if (adaptFields(fields, answer)) continue;
          if (!refusesMode(mode, answer))
            throw httpFailure({ answer, url: shown, api: "openai", model: p.model, maxTokens, secrets: [p.key] });
          tried.push(`${mode} refused: ${describeServerError(answer.error, [p.key])}`);
          i++;
          continue;
        }
        const choice = (answer.json as { choices?: Choice[] } | undefined)?.choices?.[0];
        const refusal = choice?.message?.refusal;
        if (refusal || choice?.finish_reason === "content_filter")
          throw new ProviderError("refusal", `the model refused: ${refusal ?? "stopped by the content filter"}`, {
            url: shown,
            next: "rephrase the sentence, or use another model (STUDIO_LLM_MODEL)",
          });
        if (choice?.finish_reason === "length") throw truncatedAnswer(shown, maxTokens, 'finish_reason "length"');
        const checked = checkAnswer(rawAnswer(choice, mode, g.name ?? "answer"), g.schema);
        if ("answer" in checked) {
          first = i;
          return checked.answer;
        }
        tried.push(`${mode}: ${checked.problem}`);
        i++;
      }
      throw new ProviderError("malformed", `no valid JSON answer from ${shown} (${tried.join("; ")})`, {
        url: shown,
        next: "use a model that follows JSON schemas (STUDIO_LLM_MODEL), or a server that enforces response_format json_schema",
      });
    },
  };
}
