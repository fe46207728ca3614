import type { ValidateFunction } from "ajv";
import type { Hex } from "viem";
import type { JsonSchema } from "../../../gate/compileSchema.ts";
import { compileSchema } from "../../../gate/compileSchema.ts";
import { SCHEME_ESCROW } from "../../../protocol/constants.ts";
import type { MeteredTerms } from "../../../protocol/schemas/pricing.ts";
import type { Quote } from "../../../protocol/schemas/quote.ts";
import type { BuyerChain } from "./buyerChain.ts";
import { BuyerError } from "./buyerError.ts";
import { exampleRequests } from "./exampleRequests.ts";
import type { PinnedTerms } from "./pinPaymentTerms.ts";
import type { PinnedCard } from "./readPinnedCard.ts";
import { readPinnedCard } from "./readPinnedCard.ts";
import { requestQuote } from "./requestQuote.ts";

/** A creator's JSON Schema of a JSON object, checked and compiled as the gate compiles it. */
export type ObjectSchema = { schema: Record<string, unknown>; validate: ValidateFunction };

/** What a resource publishes about its calls, read the way its payment terms are: pinned to its card and the chain. */
export type ResourceSchemas = {
  pinned: PinnedCard;
  terms: PinnedTerms;
  /** The metered terms of the quote's escrow entry (base, perKB, compute multiplier, largest response). */
  pricing: MeteredTerms;
  /** The request schema (a JSON object: `type: "object"` is made explicit when it was left out). */
  request: ObjectSchema;
  /** The response schema when it describes a JSON object (`type: "object"`); undefined for any other answer. */
  response: ObjectSchema | undefined;
  /** The 402 quote they were read from. */
  quote: Quote;
};

/** Deepest nesting of objects and arrays a creator's schema may have. */
export const MAX_SCHEMA_DEPTH = 32;

function depthOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  const inner = Array.isArray(value) ? value : Object.values(value);
  return 1 + inner.reduce<number>((deepest, item) => Math.max(deepest, depthOf(item)), 0);
}

function refsOf(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsOf(item, found);
  else if (value !== null && typeof value === "object")
    for (const [key, inner] of Object.entries(value)) {
      if (key === "$ref" && typeof inner === "string") found.push(inner);
      refsOf(inner, found);
    }
  return found;
}

/**
 * Checks and compiles a schema a creator published: at most {@link MAX_SCHEMA_DEPTH} deep, every `$ref` local (`#…`:
 * nothing is ever fetched), and compiled by the gate's own `compileSchema` (ajv strict mode, unknown keywords refused,
 * patterns that could backtrack refused). Throws `BuyerError` `invalid_schema` naming what failed.
 */
function compileCreatorSchema(schema: JsonSchema, name: string, resourceId: Hex): ValidateFunction {
  const refused = (why: string) =>
    new BuyerError("invalid_schema", `the ${name} schema that resource ${resourceId} publishes is refused: ${why}`);
  if (depthOf(schema) > MAX_SCHEMA_DEPTH) throw refused(`it is nested more than ${MAX_SCHEMA_DEPTH} deep`);
  const remote = refsOf(schema).find((ref) => !ref.startsWith("#"));
  if (remote !== undefined) throw refused(`it refers to ${JSON.stringify(remote.slice(0, 80))}, outside itself`);
  try {
    return compileSchema(schema, name);
  } catch (error) {
    throw refused((error as Error).message);
  }
}

const isObjectSchema = (schema: JsonSchema): schema is Record<string, unknown> =>
  typeof schema === "object" && schema !== null && !Array.isArray(schema);

/**
 * Reads a resource's request and response schemas the way its payment terms are read: the card from the URI the
 * registry holds (hashed to its `cardHash`, `readPinnedCard`), then its 402 quote asked with the card's example
 * requests (else `{}`) at the card's `url` and pinned against the chain (`requestQuote`), and the schemas from the
 * quote's discovery extension (`extensions.bazaar`, where the gate publishes the schemas it enforces). A schema is a
 * creator's untrusted input: it is checked and compiled (`compileCreatorSchema`) and only ever shapes a call's body
 * and its answer, never a money field, which come from the pinned terms alone. Nothing is signed or paid.
 * Throws `no_schema` when the quote publishes none, `invalid_schema` when one is refused, and whatever pinning throws.
 * @example const { request, response, terms } = await readResourceSchemas(chain, resourceId)
 */
export async function readResourceSchemas(chain: BuyerChain, resourceId: Hex): Promise<ResourceSchemas> {
  const pinned = await readPinnedCard(chain, resourceId);
  let quoted: Awaited<ReturnType<typeof requestQuote>> | undefined;
  for (const body of [...exampleRequests(pinned.card), {}]) {
    try {
      quoted = await requestQuote({ chain, callUrl: pinned.card.url, body, pinned });
      break;
    } catch (error) {
      if (!(error instanceof BuyerError && error.code === "invalid_body")) throw error;
    }
  }
  if (!quoted)
    throw new BuyerError(
      "no_schema",
      `resource ${resourceId} refuses its card's example requests and {} alike, so its 402 quote (and its schemas) cannot be read`,
    );
  const { quote, terms } = quoted;
  const extension = quote.extensions?.bazaar;
  if (!extension)
    throw new BuyerError(
      "no_schema",
      `the 402 quote of resource ${resourceId} publishes no request and response schemas (no extensions.bazaar)`,
    );
  const entry = quote.accepts.find((a) => a.scheme === SCHEME_ESCROW);
  if (!entry || entry.scheme !== SCHEME_ESCROW) throw new BuyerError("invalid_quote", "the quote has no escrow entry");
  const published = extension.schema.properties;
  const requestRaw = published.input.properties.body;
  const request =
    requestRaw === true
      ? { type: "object" }
      : isObjectSchema(requestRaw)
        ? { type: "object", ...requestRaw }
        : undefined;
  if (request?.type !== "object")
    throw new BuyerError(
      "invalid_schema",
      `the request schema that resource ${resourceId} publishes does not describe a JSON object`,
    );
  const responseRaw = published.output.properties.example;
  const response = isObjectSchema(responseRaw) && responseRaw.type === "object" ? responseRaw : undefined;
  return {
    pinned,
    terms,
    pricing: entry.pricing,
    request: { schema: request, validate: compileCreatorSchema(request, "request", resourceId) },
    response: response && {
      schema: response,
      validate: compileCreatorSchema(response, "response", resourceId),
    },
    quote,
  };
}
