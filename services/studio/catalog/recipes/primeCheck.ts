import { bindRange } from "../bindRange.ts";
import { rangeSamples } from "../rangeSamples.ts";
import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

const LIMITS = { minimum: 0, maximum: 1e12 };

/** The prime factors of n, ascending: the independent oracle of the examples. */
function factorize(n: number): number[] {
  const factors: number[] = [];
  let rest = n;
  for (let p = 2; p * p <= rest; p++)
    while (rest % p === 0) {
      factors.push(p);
      rest /= p;
    }
  if (rest > 1 && n >= 2) factors.push(rest);
  return factors;
}

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
  limits: LIMITS,
  parameters: (sentence) => bindRange(sentence, LIMITS),
  build: (range) => ({
    name: range.maximum ? `Prime check (${range.minimum} to ${range.maximum})` : "Prime check",
    description: `Whether an integer from ${range.minimum ?? 0} to ${range.maximum ?? "10^12"} is prime, and its prime factors in ascending order (none for 0 and 1).`,
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
    requestSchema: objectSchema({
      number: {
        type: "integer",
        minimum: Number(range.minimum ?? LIMITS.minimum),
        maximum: Number(range.maximum ?? LIMITS.maximum),
      },
    }),
    responseSchema: objectSchema({
      prime: { type: "boolean" },
      factors: { type: "array", items: { type: "integer", minimum: 2 } },
    }),
    examples: range.maximum
      ? rangeSamples(range, LIMITS, [97, 360]).map((number) => ({
          input: { number },
          output: { prime: factorize(number).length === 1, factors: factorize(number) },
        }))
      : [
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
