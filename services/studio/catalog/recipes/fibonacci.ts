import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** The nth Fibonacci number, exact. */
export const fibonacciRecipe: Recipe = {
  id: "fibonacci",
  title: "Fibonacci number",
  description: "Return the nth Fibonacci number of the Fibonacci sequence, exactly",
  synonyms: ["fibonacci", "fib", "nth", "sequence", "term", "golden", "series"],
  category: "math",
  tags: ["math", "fibonacci", "sequence"],
  parameters: () => ({}),
  build: () => ({
    name: "Fibonacci number",
    description: "F(n) for n from 0 to 5000 (F(0) = 0, F(1) = 1), exact, as a decimal string.",
    compute: String.raw`
async function compute(input) {
  let a = 0n, b = 1n;
  for (let i = 0; i < input.n; i++) [a, b] = [b, a + b];
  return { n: input.n, value: a.toString() };
}`,
    requestSchema: objectSchema({ n: { type: "integer", minimum: 0, maximum: 5_000 } }),
    responseSchema: objectSchema({
      n: { type: "integer", minimum: 0 },
      value: { type: "string", pattern: "^[0-9]+$" },
    }),
    examples: [
      { input: { n: 10 }, output: { n: 10, value: "55" } },
      { input: { n: 0 }, output: { n: 0, value: "0" } },
      { input: { n: 100 }, output: { n: 100, value: "354224848179261915075" } },
    ],
    edgeCases: [{ input: { n: 5_000 }, note: "the largest: 1,045 digits" }],
    maxResponseBytes: 2_048,
  }),
};
