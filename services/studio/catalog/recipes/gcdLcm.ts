import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** The greatest common divisor and least common multiple of integers. */
export const gcdLcmRecipe: Recipe = {
  id: "gcd-lcm",
  title: "GCD and LCM",
  description: "Compute the greatest common divisor (GCD) and least common multiple (LCM) of a list of integer numbers",
  synonyms: [
    "gcd",
    "hcf",
    "lcm",
    "greatest",
    "highest",
    "common",
    "divisor",
    "factor",
    "least",
    "lowest",
    "multiple",
    "denominator",
  ],
  category: "math",
  tags: ["math", "gcd", "lcm"],
  parameters: () => ({}),
  build: () => ({
    name: "GCD and LCM",
    description:
      "The greatest common divisor and the least common multiple (exact, as a decimal string) of 2 to 100 integers of at most 10^9 in magnitude.",
    compute: String.raw`
const gcd = (a, b) => { while (b) [a, b] = [b, a % b]; return a; };
async function compute(input) {
  const xs = input.numbers.map((x) => BigInt(Math.abs(x)));
  const g = xs.reduce((a, b) => gcd(a, b));
  const l = xs.includes(0n) ? 0n : xs.reduce((a, b) => (a / gcd(a, b)) * b);
  return { gcd: Number(g), lcm: l.toString() };
}`,
    requestSchema: objectSchema({
      numbers: {
        type: "array",
        minItems: 2,
        maxItems: 100,
        items: { type: "integer", minimum: -1e9, maximum: 1e9 },
      },
    }),
    responseSchema: objectSchema({
      gcd: { type: "integer", minimum: 0 },
      lcm: { type: "string", pattern: "^[0-9]+$" },
    }),
    examples: [
      { input: { numbers: [12, 18] }, output: { gcd: 6, lcm: "36" } },
      { input: { numbers: [4, 6, 10] }, output: { gcd: 2, lcm: "60" } },
      { input: { numbers: [-21, 14, 0] }, output: { gcd: 7, lcm: "0" } },
    ],
    edgeCases: [{ input: { numbers: [0, 0] }, note: "gcd(0, 0) is 0" }],
    maxResponseBytes: 1_024,
  }),
};
