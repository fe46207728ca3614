/** The JSON Schema the provider tests ask for: an object with a `source` string. */
export const SOURCE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["source"],
  properties: { source: { type: "string" } },
};

/** One `generate` call as the provider tests make it. */
export const GENERATE_ASK = {
  system: "You write handlers.",
  messages: [{ role: "user" as const, content: "Echo." }],
  schema: SOURCE_SCHEMA,
  name: "handler_source",
};

/** Short timeouts and waits for the provider tests: two retries, half a second per request, two seconds at most between. */
export const TEST_RETRIES = { timeoutMs: 500, retries: 2, maxWaitMs: 2_000 };
