import type { Recipe } from "../recipe.ts";
import { objectSchema, text } from "../recipe.ts";

/** Numbers (integers, decimals, exponents, negatives) found in a text. */
export const extractNumbersRecipe: Recipe = {
  id: "extract-numbers",
  title: "Extract numbers",
  description: "Extract every number found in a text, with their count",
  synonyms: ["number", "numbers", "digits", "numeric", "values", "extract", "find", "parse", "regex"],
  category: "extraction",
  tags: ["numbers", "extract", "regex"],
  parameters: () => ({}),
  build: () => ({
    name: "Extract numbers",
    description: "Every finite number in a text (integers, decimals, exponents, with sign), in order.",
    compute: String.raw`
async function compute(input) {
  const numbers = (input.text.match(/-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/g) || []).map(Number).filter(Number.isFinite);
  return { numbers, count: numbers.length };
}`,
    requestSchema: objectSchema({ text: text(100_000) }),
    responseSchema: objectSchema({
      numbers: { type: "array", items: { type: "number" } },
      count: { type: "integer", minimum: 0 },
    }),
    examples: [
      { input: { text: "3 apples cost 4.50, temperature -2" }, output: { numbers: [3, 4.5, -2], count: 3 } },
      { input: { text: "none" }, output: { numbers: [], count: 0 } },
      { input: { text: "1e3 and 2.5E-1" }, output: { numbers: [1000, 0.25], count: 2 } },
    ],
    edgeCases: [{ input: { text: "1e999" }, note: "a number too large for a double is dropped" }],
    maxResponseBytes: 200_000,
  }),
};
