import type { ValidateFunction } from "ajv";
import type { DiscoveryExtension } from "../protocol/schemas/discoveryExtension.ts";
import { buildDiscoveryExtension, MAX_DISCOVERY_BYTES } from "../protocol/schemas/discoveryExtension.ts";
import type { ResolvedGateConfig } from "./resolveGateConfig.ts";

/** The compiled request and response schemas of the gate. */
export type DiscoveryValidators = { validateRequest: ValidateFunction; validateResponse: ValidateFunction };

/** A card example in the documented form: one JSON string `{"request":…,"response":…}`. */
type ExampleCall = { request: Record<string, unknown>; response: unknown };

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The example calls of a card's skills in the documented form, in order; examples in any other form are left out.
 * @example for (const call of cardExampleCalls(card)) check(call.request)
 */
export function cardExampleCalls(card: unknown): ExampleCall[] {
  const calls: ExampleCall[] = [];
  const skills = isObject(card) && Array.isArray(card.skills) ? card.skills : [];
  for (const skill of skills) {
    const examples = isObject(skill) && Array.isArray(skill.examples) ? skill.examples : [];
    for (const example of examples) {
      let call: unknown;
      try {
        call = typeof example === "string" ? JSON.parse(example) : undefined;
      } catch {
        continue;
      }
      if (isObject(call) && isObject(call.request) && "response" in call)
        calls.push({ request: call.request, response: call.response });
    }
  }
  return calls;
}

/** The first example of the card's skills whose request and response both pass the gate's schemas. */
function exampleCall(card: unknown, validators: DiscoveryValidators): ExampleCall | undefined {
  return cardExampleCalls(card).find(
    (call) => validators.validateRequest(call.request) && validators.validateResponse(call.response),
  );
}

const bytesOf = (extension: DiscoveryExtension) => Buffer.byteLength(JSON.stringify({ bazaar: extension }), "utf8");

/** The discovery extension of a gate's quote, or why there is none. */
export type DiscoveryExtensionOfReturnType =
  | { extension: DiscoveryExtension; dropped?: undefined }
  | { extension: undefined; dropped: string };

/**
 * The Bazaar discovery extension of a gate's quote, from trusted configuration only: its request and response schemas,
 * and as the example call the first card example (`skills[].examples`, `{"request":…,"response":…}`) that passes
 * both, else the declared `sampleRequest` with no example response. Over {@link MAX_DISCOVERY_BYTES} it is built again
 * without the example response, and dropped when still too large (the quote then carries no `extensions`).
 * @example const { extension } = discoveryExtensionOf(config, { validateRequest, validateResponse })
 */
export function discoveryExtensionOf(
  config: ResolvedGateConfig,
  validators: DiscoveryValidators,
): DiscoveryExtensionOfReturnType {
  const example = exampleCall(config.card(), validators);
  const build = (responseExample: unknown) =>
    buildDiscoveryExtension({
      requestSchema: config.requestSchema,
      responseSchema: config.responseSchema,
      requestExample: example?.request ?? config.sampleRequest,
      responseExample,
    });
  const full = build(example?.response);
  if (bytesOf(full) <= MAX_DISCOVERY_BYTES) return { extension: full };
  const bare = build(undefined);
  if (bytesOf(bare) <= MAX_DISCOVERY_BYTES) return { extension: bare };
  return {
    extension: undefined,
    dropped: `the request and response schemas take ${bytesOf(bare)} bytes in the quote's discovery extension, over its ${MAX_DISCOVERY_BYTES}: the quote publishes no schemas`,
  };
}
