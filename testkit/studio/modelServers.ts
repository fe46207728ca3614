import type { ReceivedRequest, RecordedAnswer, WireAnswer } from "./wireServer.ts";

/**
 * How real model servers answer, body for body, for the provider tests' wire servers. Each shape is taken from the
 * server's source or documentation: OpenAI's API reference and error codes; llama.cpp's tools/server
 * (`format_error_response`: `{ error: { code, message, type } }`, 501 `not_supported_error`; without `--jinja` a
 * request with `tools` is a 500 "tools param requires --jinja flag"; an object `tool_choice` is read as "auto");
 * Ollama's openai/openai.go (`{ error: { message, type, param, code } }`, `tool_choice` not read, a model without
 * tool support refused with 400 "… does not support tools", a wrong path answered by Go's "404 page not found");
 * vLLM's OpenAI server (`{ object: "error", message, type, param, code }` before 0.10, `{ error: { … } }` after,
 * FastAPI's `{ detail: "Not Found" }`, a named tool call answered with `finish_reason: "stop"`); Anthropic's
 * Messages API (`{ type: "error", error: { type, message } }`, 529 `overloaded_error`, `stop_reason: "max_tokens"`).
 */

type ChatMessage = { role: "assistant"; content: string | null; [field: string]: unknown };

/** A chat completion in OpenAI's shape (the others add or drop a few fields around it). */
function completion(message: ChatMessage, finishReason: string, extra: Record<string, unknown> = {}): RecordedAnswer {
  return {
    json: {
      id: "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
      object: "chat.completion",
      created: 1_741_569_952,
      model: "model",
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
      usage: { prompt_tokens: 120, completion_tokens: 80, total_tokens: 200 },
      ...extra,
    },
  };
}

function toolCalls(name: string, args: string, extra: Record<string, unknown> = {}) {
  return [{ id: "call_3TBmU5N6gH0", type: "function", function: { name, arguments: args }, ...extra }];
}

/** OpenAI's chat completions API. */
export const openai = {
  content: (text: string) => completion({ role: "assistant", content: text, refusal: null, annotations: [] }, "stop"),
  toolCall: (name: string, args: string) =>
    completion({ role: "assistant", content: null, tool_calls: toolCalls(name, args), refusal: null }, "tool_calls"),
  refusal: (text: string) => completion({ role: "assistant", content: null, refusal: text }, "stop"),
  /** The answer stopped at `max_tokens`: its JSON is cut. */
  truncated: (text: string) => completion({ role: "assistant", content: text, refusal: null }, "length"),
  error: (status: number, message: string, type: string, code: string | null = null, param: string | null = null) =>
    ({ status, json: { error: { message, type, param, code } } }) satisfies RecordedAnswer,
  invalidKey: (key: string) =>
    openai.error(
      401,
      `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      "invalid_request_error",
      "invalid_api_key",
    ),
  modelNotFound: (model: string) =>
    openai.error(
      404,
      `The model \`${model}\` does not exist or you do not have access to it.`,
      "invalid_request_error",
      "model_not_found",
    ),
  /** `https://api.openai.com/chat/completions`, without `/v1`. */
  invalidUrl: () => openai.error(404, "Invalid URL (POST /chat/completions)", "invalid_request_error"),
  jsonSchemaUnsupported: () =>
    openai.error(
      400,
      "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model. Learn more about supported models at the Structured Outputs guide: https://platform.openai.com/docs/guides/structured-outputs",
      "invalid_request_error",
    ),
  /** Reasoning models (o1, o3, gpt-5) refuse `max_tokens`. */
  maxTokensUnsupported: () =>
    openai.error(
      400,
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      "invalid_request_error",
      "unsupported_parameter",
      "max_tokens",
    ),
  temperatureUnsupported: () =>
    openai.error(
      400,
      "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
      "invalid_request_error",
      "unsupported_value",
      "temperature",
    ),
  insufficientQuota: () =>
    openai.error(
      429,
      "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
      "insufficient_quota",
      "insufficient_quota",
    ),
};

/** llama.cpp's `llama-server` (tools/server), OpenAI-compatible routes. */
export const llamaCpp = {
  content: (text: string, finishReason = "stop") =>
    completion({ role: "assistant", content: text }, finishReason, {
      model: "gpt-3.5-turbo",
      system_fingerprint: "b6123-79c1160b",
      timings: { prompt_n: 120, predicted_n: 80 },
    }),
  error: (status: number, message: string, type: string) =>
    ({ status, json: { error: { code: status, message, type } } }) satisfies RecordedAnswer,
  /** Started without `--jinja`: any request with `tools` is refused, as a server error. */
  noJinja: () => llamaCpp.error(500, "tools param requires --jinja flag", "server_error"),
  /** A build from before `json_schema` response formats. */
  jsonSchemaUnknown: () =>
    llamaCpp.error(
      500,
      'response_format type must be one of "text" or "json_object", but got: json_schema',
      "server_error",
    ),
  contextExceeded: () => ({
    status: 400,
    json: {
      error: {
        code: 400,
        message: "the request exceeds the available context size, try increasing it",
        type: "exceed_context_size_error",
        n_prompt_tokens: 5_012,
        n_ctx: 4_096,
      },
    },
  }),
  notSupported: (message: string) => llamaCpp.error(501, message, "not_supported_error"),
  loading: () => llamaCpp.error(503, "Loading model", "unavailable_error"),
  /**
   * A server started without `--jinja` whose old build knows no `json_schema`: it answers only plain prompts, with
   * `text`.
   */
  withoutJinja:
    (text: string): WireAnswer =>
    (request: ReceivedRequest) =>
      request.body.tools
        ? llamaCpp.noJinja()
        : request.body.response_format
          ? llamaCpp.jsonSchemaUnknown()
          : llamaCpp.content(text),
};

/** Ollama's OpenAI compatibility (`/v1`). */
export const ollama = {
  content: (text: string, finishReason = "stop") =>
    completion({ role: "assistant", content: text }, finishReason, {
      model: "qwen2.5-coder:14b",
      system_fingerprint: "fp_ollama",
    }),
  /** Arguments are a JSON string, each call has an `index`; `content` is empty. */
  toolCall: (name: string, args: string) =>
    completion({ role: "assistant", content: "", tool_calls: toolCalls(name, args, { index: 0 }) }, "tool_calls", {
      system_fingerprint: "fp_ollama",
    }),
  error: (status: number, message: string) =>
    ({
      status,
      json: {
        error: {
          message,
          type: status === 400 ? "invalid_request_error" : status === 404 ? "not_found_error" : "api_error",
          param: null,
          code: null,
        },
      },
    }) satisfies RecordedAnswer,
  noTools: (model: string) => ollama.error(400, `registry.ollama.ai/library/${model} does not support tools`),
  modelNotFound: (model: string) => ollama.error(404, `model "${model}" not found, try pulling it first`),
  /** `http://127.0.0.1:11434/chat/completions`, without `/v1`: Go's default 404, as text. */
  wrongPath: (): RecordedAnswer => ({ status: 404, raw: "404 page not found" }),
};

/** vLLM's OpenAI-compatible server. */
export const vllm = {
  content: (text: string, finishReason = "stop") =>
    completion({ role: "assistant", reasoning_content: null, content: text, tool_calls: [] }, finishReason, {
      model: "Qwen/Qwen2.5-Coder-7B-Instruct",
      prompt_logprobs: null,
    }),
  /** A named `tool_choice` is answered through guided decoding, with `finish_reason: "stop"`. */
  namedToolCall: (name: string, args: string) =>
    completion({ role: "assistant", reasoning_content: null, content: "", tool_calls: toolCalls(name, args) }, "stop"),
  /** Before 0.10: the error object is the body. */
  errorBefore010: (status: number, message: string, type: string) =>
    ({ status, json: { object: "error", message, type, param: null, code: status } }) satisfies RecordedAnswer,
  error: (status: number, message: string, type: string) =>
    ({ status, json: { error: { message, type, param: null, code: status } } }) satisfies RecordedAnswer,
  contextExceeded: () =>
    vllm.errorBefore010(
      400,
      "This model's maximum context length is 8192 tokens. However, you requested 12372 tokens (4180 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.",
      "BadRequestError",
    ),
  schemaUnsupported: () =>
    vllm.error(400, "The provided JSON schema contains features not supported by xgrammar.", "BadRequestError"),
  modelNotFound: (model: string) => vllm.error(404, `The model \`${model}\` does not exist.`, "NotFoundError"),
  /** A path FastAPI has no route for. */
  notFound: (): RecordedAnswer => ({ status: 404, json: { detail: "Not Found" } }),
  /** Started with `--api-key`: a wrong or missing key. */
  unauthorized: (): RecordedAnswer => ({ status: 401, json: { error: "Unauthorized" } }),
};

/** Anthropic's Messages API. */
export const anthropic = {
  message: (content: unknown[], stopReason: string): RecordedAnswer => ({
    json: {
      id: "msg_01XFDUDYJgAACzvnptvVoYEL",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { input_tokens: 120, output_tokens: 80 },
    },
  }),
  toolUse: (name: string, input: unknown) =>
    anthropic.message(
      [
        { type: "text", text: "Here it is." },
        { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name, input },
      ],
      "tool_use",
    ),
  /** Stopped at `max_tokens` inside the tool call: its input is what was complete. */
  truncated: (name: string) =>
    anthropic.message([{ type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name, input: {} }], "max_tokens"),
  error: (status: number, type: string, message: string, headers?: Record<string, string>): RecordedAnswer => ({
    status,
    headers,
    json: { type: "error", error: { type, message }, request_id: "req_011CSHoEeqs5C35K2UUqR7Fy" },
  }),
};
