import { bindRange } from "../bindRange.ts";
import { rangeSamples } from "../rangeSamples.ts";
import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

const LIMITS = { minimum: 0, maximum: 5_000 };

/** F(n) exactly: the independent oracle of the examples. */
function fibonacci(n: number): string {
  let [a, b] = [0n, 1n];
  for (let i = 0; i < n; i++) [a, b] = [b, a + b];
  return a.toString();
}

/** The nth Fibonacci number, exact. */
export const fibonacciRecipe: Recipe = {
  id: "fibonacci",
  title: "Fibonacci number",
  description: "Return the nth Fibonacci number of the Fibonacci sequence, exactly",
  synonyms: ["fibonacci", "fib", "nth", "sequence", "term", "golden", "series"],
  category: "math",
  tags: ["math", "fibonacci", "sequence"],
  limits: LIMITS,
  parameters: (sentence) => bindRange(sentence, LIMITS),
  build: (range) => ({
    name: range.maximum ? `Fibonacci number (n ${range.minimum} to ${range.maximum})` : "Fibonacci number",
    description: `F(n) for n from ${range.minimum ?? 0} to ${range.maximum ?? 5000} (F(0) = 0, F(1) = 1), exact, as a decimal string.`,
    compute: String.raw`
async function compute(input) {
  let a = 0n, b = 1n;
  for (let i = 0; i < input.n; i++) [a, b] = [b, a + b];
  return { n: input.n, value: a.toString() };
}`,
    requestSchema: objectSchema({
      n: {
        type: "integer",
        minimum: Number(range.minimum ?? LIMITS.minimum),
        maximum: Number(range.maximum ?? LIMITS.maximum),
      },
    }),
    responseSchema: objectSchema({
      n: { type: "integer", minimum: 0 },
      value: { type: "string", pattern: "^[0-9]+$" },
    }),
    examples: rangeSamples(range, LIMITS, [10, 100]).map((n) => ({ input: { n }, output: { n, value: fibonacci(n) } })),
    edgeCases: [{ input: { n: Number(range.maximum ?? LIMITS.maximum) }, note: "the largest taken" }],
    maxResponseBytes: 2_048,
  }),
};
