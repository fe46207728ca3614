import { z } from "zod";
import { SchemaValidationError } from "../errors.ts";

/**
 * Most UTF-8 bytes of a quote's `extensions` as JSON. A stock x402 client echoes `extensions` into its payment header,
 * and Node refuses request headers past 16 KiB in all: 8 KiB of extension, base64-encoded with the rest of the
 * payment, stays about 3 KiB under that.
 */
export const MAX_DISCOVERY_BYTES = 8192;

const JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";

/** A JSON Schema as a creator supplies it: an object, or `true`/`false`. */
export const jsonSchemaSchema = z.union([z.record(z.string(), z.unknown()), z.boolean()]);

const stringConst = <const T extends string>(value: T) =>
  z.strictObject({ type: z.literal("string"), const: z.literal(value) });
const stringEnum = <const T extends string>(value: T) =>
  z.strictObject({ type: z.literal("string"), enum: z.tuple([z.literal(value)]) });

/**
 * The Bazaar discovery extension of a `POST` JSON endpoint, as the x402 reference's `declareDiscoveryExtension`
 * shapes it: `info` holds an example request body (and, when known, an example response), and `schema` is a JSON
 * Schema (draft 2020-12) of `info` whose `properties.input.properties.body` is the resource's request schema and
 * `properties.output.properties.example` its response schema.
 */
export const discoveryExtensionSchema = z.strictObject({
  info: z.strictObject({
    input: z.strictObject({
      type: z.literal("http"),
      method: z.literal("POST"),
      bodyType: z.literal("json"),
      body: z.record(z.string(), z.unknown()),
    }),
    output: z.strictObject({ type: z.literal("json"), example: z.unknown().optional() }),
  }),
  schema: z.strictObject({
    $schema: z.literal(JSON_SCHEMA_DIALECT),
    type: z.literal("object"),
    properties: z.strictObject({
      input: z.strictObject({
        type: z.literal("object"),
        properties: z.strictObject({
          type: stringConst("http"),
          method: stringEnum("POST"),
          bodyType: stringEnum("json"),
          body: jsonSchemaSchema,
        }),
        required: z.tuple([z.literal("type"), z.literal("method"), z.literal("bodyType"), z.literal("body")]),
        additionalProperties: z.literal(false),
      }),
      output: z.strictObject({
        type: z.literal("object"),
        properties: z.strictObject({ type: z.strictObject({ type: z.literal("string") }), example: jsonSchemaSchema }),
        required: z.tuple([z.literal("type")]),
      }),
    }),
    required: z.tuple([z.literal("input")]),
  }),
});

/** The Bazaar discovery extension of a quote. */
export type DiscoveryExtension = z.output<typeof discoveryExtensionSchema>;

/** What a gate knows of its resource's contract: the schemas it enforces, and an example call. */
export type BuildDiscoveryExtensionParameters = {
  requestSchema: z.input<typeof jsonSchemaSchema>;
  responseSchema: z.input<typeof jsonSchemaSchema>;
  /** A request body the request schema accepts. */
  requestExample: Record<string, unknown>;
  /** A response the response schema accepts, answered to `requestExample`; omitted when unknown. */
  responseExample?: unknown;
};

/**
 * Builds the Bazaar discovery extension (`extensions.bazaar` of the 402 quote) that publishes a resource's request
 * and response schemas where a stock x402 v2 client and facilitator look for them.
 * @throws {SchemaValidationError} when the parameters do not form a valid extension.
 * @example buildDiscoveryExtension({ requestSchema, responseSchema, requestExample: { text: "level" } })
 */
export function buildDiscoveryExtension(parameters: BuildDiscoveryExtensionParameters): DiscoveryExtension {
  const output =
    parameters.responseExample === undefined
      ? { type: "json" as const }
      : { type: "json" as const, example: parameters.responseExample };
  const result = discoveryExtensionSchema.safeParse({
    info: {
      input: { type: "http", method: "POST", bodyType: "json", body: parameters.requestExample },
      output,
    },
    schema: {
      $schema: JSON_SCHEMA_DIALECT,
      type: "object",
      properties: {
        input: {
          type: "object",
          properties: {
            type: { type: "string", const: "http" },
            method: { type: "string", enum: ["POST"] },
            bodyType: { type: "string", enum: ["json"] },
            body: parameters.requestSchema,
          },
          required: ["type", "method", "bodyType", "body"],
          additionalProperties: false,
        },
        output: {
          type: "object",
          properties: { type: { type: "string" }, example: parameters.responseSchema },
          required: ["type"],
        },
      },
      required: ["input"],
    },
  });
  if (!result.success)
    throw new SchemaValidationError("discovery extension", z.prettifyError(result.error), result.error);
  return result.data;
}
