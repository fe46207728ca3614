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

/** A model behind one interface: `generate` answers a JSON object valid against `schema`, within one deadline. */
export type ModelProvider = {
  name: string;
  model: string;
  generate(p: GenerateParameters): Promise<Record<string, unknown>>;
};

/** How long one stage may wait for the model by default (every try, wait and fallback included). */
export const DEFAULT_DEADLINE_MS = 120_000;

/** The most tokens a model may write in one answer by default (`max_tokens`). */
export const DEFAULT_MAX_TOKENS = 4_096;

/** Settings every provider takes besides its URL, model and key. */
export type ProviderLimits = {
  /** One overall deadline per `generate` (a stage's model work), ms. */
  deadlineMs?: number;
  maxTokens?: number;
  /** Further tries of a failed request, within the deadline. */
  retries?: number;
  /** Longest wait between tries, ms. */
  maxWaitMs?: number;
};

const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });

/** A model's answer read against the schema: the JSON object, or why it is not one. */
export type CheckedAnswer = { answer: Record<string, unknown> } | { problem: string };

/**
 * Reads a model's answer (a JSON string or an already parsed value) as an object valid against `schema`, or says
 * why it is not: not JSON, not an object, or the first schema violation.
 * @example checkAnswer('{"source":"x"}', { type: "object" }) // { answer: { source: "x" } }
 */
export function checkAnswer(value: unknown, schema: Record<string, unknown>): CheckedAnswer {
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      return { problem: `not JSON: ${JSON.stringify(value.slice(0, 120))}${value.length > 120 ? "…" : ""}` };
    }
  }
  if (parsed === undefined) return { problem: "no answer" };
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return { problem: "not a JSON object" };
  if (ajv.validate(schema, parsed)) return { answer: parsed as Record<string, unknown> };
  const [first] = ajv.errors ?? [];
  return { problem: `not valid against the schema: ${first?.instancePath || "/"} ${first?.message ?? ""}`.trim() };
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
