import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** Whether an integer is prime, with its prime factorization. */
export const primeCheckRecipe: Recipe = {
  id: "prime-check",
  title: "Prime check",
  description: "Check whether an integer number is prime and return its prime factors",
  synonyms: [
    "prime",
    "primes",
    "primality",
    "factor",
    "factors",
    "factorize",
    "factorise",
    "factorization",
    "composite",
    "integer",
  ],
  category: "math",
  tags: ["math", "prime", "number"],
  parameters: () => ({}),
  build: () => ({
    name: "Prime check",
    description:
      "Whether an integer from 0 to 10^12 is prime, and its prime factors in ascending order (none for 0 and 1).",
    compute: String.raw`
async function compute(input) {
  let n = input.number;
  const factors = [];
  if (n >= 2) {
    for (let p = 2; p * p <= n; p += p === 2 ? 1 : 2) while (n % p === 0) { factors.push(p); n /= p; }
    if (n > 1) factors.push(n);
  }
  return { prime: factors.length === 1, factors };
}`,
    requestSchema: objectSchema({ number: { type: "integer", minimum: 0, maximum: 1e12 } }),
    responseSchema: objectSchema({
      prime: { type: "boolean" },
      factors: { type: "array", items: { type: "integer", minimum: 2 } },
    }),
    examples: [
      { input: { number: 97 }, output: { prime: true, factors: [97] } },
      { input: { number: 360 }, output: { prime: false, factors: [2, 2, 2, 3, 3, 5] } },
      { input: { number: 1 }, output: { prime: false, factors: [] } },
      { input: { number: 999999999989 }, output: { prime: true, factors: [999999999989] } },
    ],
    edgeCases: [
      { input: { number: 0 }, note: "zero has no prime factors" },
      { input: { number: 2 }, note: "the only even prime" },
    ],
    maxResponseBytes: 512,
  }),
};
