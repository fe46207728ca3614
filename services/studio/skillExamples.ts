import type { EndpointContract } from "./contract.ts";

/** At most this many examples go on a card. */
export const MAX_SKILL_EXAMPLES = 5;

/** An example longer than this (characters of its JSON) is left off the card. */
export const MAX_SKILL_EXAMPLE_LENGTH = 2_000;

/**
 * The card skill's `examples` of a contract: one JSON string `{"request":…,"response":…}` per example of the contract,
 * in its order, the first `MAX_SKILL_EXAMPLES` of at most `MAX_SKILL_EXAMPLE_LENGTH` characters each, so a buyer sees
 * what a call answers before paying for it.
 * @example skillExamples(contract.examples)[0] // '{"request":{"text":"hello"},"response":{"hex":"68656c6c6f","bytes":5}}'
 */
export function skillExamples(examples: EndpointContract["examples"]): string[] {
  return examples
    .map((example) => JSON.stringify({ request: example.input, response: example.output }))
    .filter((json) => json.length <= MAX_SKILL_EXAMPLE_LENGTH)
    .slice(0, MAX_SKILL_EXAMPLES);
}
