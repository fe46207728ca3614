import { bindRange } from "../bindRange.ts";
import { rangeSamples } from "../rangeSamples.ts";
import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

const LIMITS = { minimum: 0, maximum: 1_000 };

/** n! exactly: the independent oracle of the examples. */
function factorial(n: number): string {
  let f = 1n;
  for (let i = 2n; i <= BigInt(n); i++) f *= i;
  return f.toString();
}

/** The exact factorial n! of an integer, as a decimal string. */
export const factorialRecipe: Recipe = {
  id: "factorial",
  title: "Factorial",
  description: "Compute the exact factorial n! of a non-negative integer number",
  synonyms: ["factorial", "n!", "permutations", "product", "integer", "exact", "bigint"],
  category: "math",
  tags: ["math", "factorial"],
  limits: LIMITS,
  parameters: (sentence) => bindRange(sentence, LIMITS),
  build: (range) => ({
    name: range.maximum ? `Factorial (${range.minimum} to ${range.maximum})` : "Factorial",
    description: `The exact factorial of an integer from ${range.minimum ?? 0} to ${range.maximum ?? 1000}, as a decimal string, with its number of digits.`,
    compute: String.raw`
async function compute(input) {
  let f = 1n;
  for (let i = 2n; i <= BigInt(input.n); i++) f *= i;
  const factorial = f.toString();
  return { factorial, digits: factorial.length };
}`,
    requestSchema: objectSchema({
      n: {
        type: "integer",
        minimum: Number(range.minimum ?? LIMITS.minimum),
        maximum: Number(range.maximum ?? LIMITS.maximum),
      },
    }),
    responseSchema: objectSchema({
      factorial: { type: "string", pattern: "^[1-9][0-9]*$" },
      digits: { type: "integer", minimum: 1 },
    }),
    examples: rangeSamples(range, LIMITS, [5, 25]).map((n) => ({
      input: { n },
      output: { factorial: factorial(n), digits: factorial(n).length },
    })),
    edgeCases: [{ input: { n: Number(range.maximum ?? LIMITS.maximum) }, note: "the largest taken" }],
    maxResponseBytes: 4_096,
  }),
};
