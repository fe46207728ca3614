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

/** Limits for the provider tests: two retries, two seconds at most between tries, ten seconds per `generate`. */
export const TEST_LIMITS = { deadlineMs: 10_000, retries: 2, maxWaitMs: 2_000 };
