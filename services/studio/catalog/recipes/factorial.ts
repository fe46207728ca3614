import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** The exact factorial n! of an integer, as a decimal string. */
export const factorialRecipe: Recipe = {
  id: "factorial",
  title: "Factorial",
  description: "Compute the exact factorial n! of a non-negative integer number",
  synonyms: ["factorial", "n!", "permutations", "product", "integer", "exact", "bigint"],
  category: "math",
  tags: ["math", "factorial"],
  parameters: () => ({}),
  build: () => ({
    name: "Factorial",
    description: "The exact factorial of an integer from 0 to 1000, as a decimal string, with its number of digits.",
    compute: String.raw`
async function compute(input) {
  let f = 1n;
  for (let i = 2n; i <= BigInt(input.n); i++) f *= i;
  const factorial = f.toString();
  return { factorial, digits: factorial.length };
}`,
    requestSchema: objectSchema({ n: { type: "integer", minimum: 0, maximum: 1_000 } }),
    responseSchema: objectSchema({
      factorial: { type: "string", pattern: "^[1-9][0-9]*$" },
      digits: { type: "integer", minimum: 1 },
    }),
    examples: [
      { input: { n: 5 }, output: { factorial: "120", digits: 3 } },
      { input: { n: 0 }, output: { factorial: "1", digits: 1 } },
      { input: { n: 25 }, output: { factorial: "15511210043330985984000000", digits: 26 } },
    ],
    edgeCases: [{ input: { n: 1_000 }, note: "the largest: 2,568 digits" }],
    maxResponseBytes: 4_096,
  }),
};
