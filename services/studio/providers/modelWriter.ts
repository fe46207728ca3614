import { randomBytes } from "node:crypto";
import type { CodeWriter, EndpointContract } from "../contract.ts";
import { StudioError } from "../studioError.ts";
import { suggestPrice } from "../suggestPrice.ts";
import type { ModelProvider } from "./modelProvider.ts";
import { ProviderError } from "./providerError.ts";

const jsonObject = { type: "object" };

/** The JSON Schema of the contract a model writes (the studio adds price and origin). */
export const CONTRACT_ANSWER_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: [
    "slug",
    "name",
    "description",
    "category",
    "tags",
    "requestSchema",
    "responseSchema",
    "examples",
    "edgeCases",
    "maxResponseBytes",
  ],
  properties: {
    slug: { type: "string", pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$", maxLength: 50 },
    name: { type: "string", minLength: 1, maxLength: 100 },
    description: { type: "string", minLength: 1, maxLength: 500 },
    category: { type: "string", pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$" },
    tags: { type: "array", minItems: 1, maxItems: 8, items: { type: "string", minLength: 1, maxLength: 40 } },
    requestSchema: jsonObject,
    responseSchema: jsonObject,
    examples: {
      type: "array",
      minItems: 3,
      items: { type: "object", required: ["input", "output"], properties: { input: jsonObject, output: {} } },
    },
    edgeCases: {
      type: "array",
      items: {
        type: "object",
        required: ["input", "note"],
        properties: { input: jsonObject, note: { type: "string" } },
      },
    },
    maxResponseBytes: { type: "integer", minimum: 64, maximum: 1_048_576 },
  },
};

/** The JSON Schema of the handler a model writes. */
export const SOURCE_ANSWER_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["source"],
  properties: { source: { type: "string", minLength: 20 } },
};

const SANDBOX_RULES =
  "The endpoint runs in a workerd (Cloudflare Workers) isolate with no network, no files, no secrets, no environment and no Node.js APIs. It must be pure and deterministic: the same request always gives the same response (no Date.now, no Math.random, no clock).";

/** System prompt of the specify stage. */
export const SPECIFY_SYSTEM = `You design small paid HTTP JSON endpoints for software agents. ${SANDBOX_RULES}
From the creator's one-sentence description, write the endpoint's contract: a lowercase dash-separated slug, a name, a one-sentence description, a category (lowercase, dashes), skill tags, a strict JSON Schema for the request body (an object, additionalProperties false, with maxLength/maxItems bounds on every string and array) and for the response body, at least 3 worked examples whose outputs are exactly what a correct handler answers, edge cases, and maxResponseBytes (the largest response a valid request can produce). Prefer expected failures as data (e.g. { "valid": false }) over errors: every request the schema accepts must get a 2xx answer.`;

/** System prompt of the write stage. */
export const WRITE_SYSTEM = `You write the handler of an endpoint contract. ${SANDBOX_RULES}
Answer with an ES module and nothing else in "source": \`export default { async fetch(request, env) { const input = await request.json(); ...; return Response.json(output); } }\`. No imports. Every request the request schema accepts must be answered 200 with JSON valid against the response schema and equal to the examples' outputs.`;

function clip(value: unknown, max = 2_000): string {
  const text = JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

async function ask<T>(stage: "specify" | "write", work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProviderError)
      throw new StudioError(
        stage,
        `provider_${error.code}`,
        `the model provider failed: ${error.message}`,
        { url: error.url, ...(error.status === undefined ? {} : { status: error.status }) },
        error.next,
      );
    throw error;
  }
}

/**
 * A code writer backed by a model provider (OpenAI-compatible or Anthropic): `specify` asks for the contract as JSON
 * valid against `CONTRACT_ANSWER_SCHEMA`, `write` for the handler source; a repair round sends the previous source
 * and the failures (check, input, expected, actual, error). The studio adds the price and a unique slug suffix.
 * @example const writer = modelWriter(openaiProvider({ url, model, key }))
 */
export function modelWriter(provider: ModelProvider): CodeWriter {
  return {
    name: provider.name,
    async specify(sentence) {
      const answer = await ask("specify", () =>
        provider.generate({
          system: SPECIFY_SYSTEM,
          messages: [{ role: "user", content: sentence }],
          schema: CONTRACT_ANSWER_SCHEMA,
          name: "endpoint_contract",
        }),
      );
      const drafted = answer as Omit<EndpointContract, "price" | "origin">;
      const slug = `${String(drafted.slug).slice(0, 50)}-${randomBytes(3).toString("hex")}`;
      return {
        ...drafted,
        slug,
        price: suggestPrice({ maxResponseBytes: Number(drafted.maxResponseBytes) }),
        origin: { provider: provider.name, model: provider.model },
      };
    },
    async write(contract, failures, previous) {
      const { price: _price, origin: _origin, ...shown } = contract;
      const messages: { role: "user" | "assistant"; content: string }[] = [
        { role: "user", content: `Contract:\n${JSON.stringify(shown, null, 2)}` },
      ];
      if (previous && failures.length > 0) {
        messages.push({ role: "assistant", content: JSON.stringify({ source: previous }) });
        messages.push({
          role: "user",
          content: `The handler failed verification. Fix every failure (check, input, expected, actual, error):\n${failures
            .slice(0, 10)
            .map((f) => clip(f))
            .join("\n")}`,
        });
      }
      const answer = await ask("write", () =>
        provider.generate({ system: WRITE_SYSTEM, messages, schema: SOURCE_ANSWER_SCHEMA, name: "handler_source" }),
      );
      return String(answer.source);
    },
  };
}
