import { LUHN_SOURCE } from "../luhnSource.ts";
import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** The Luhn (mod 10) check of a card or identification number. */
export const luhnRecipe: Recipe = {
  id: "luhn-check",
  title: "Luhn check",
  description: "Check whether a credit card number or identifier passes the Luhn mod 10 checksum",
  synonyms: ["luhn", "credit", "card", "checksum", "mod10", "validate", "check", "digit", "imei"],
  category: "validation",
  tags: ["luhn", "checksum", "validation"],
  parameters: () => ({}),
  build: () => ({
    name: "Luhn check",
    description: "Whether the digits of a number (spaces and dashes ignored, at least two digits) pass the Luhn check.",
    compute: String.raw`
${LUHN_SOURCE}
async function compute(input) {
  const digits = input.number.replace(/[\s-]/g, "");
  return { valid: luhn(digits), digits: digits.length };
}`,
    requestSchema: objectSchema({ number: { type: "string", pattern: "^[0-9 -]{1,64}$" } }),
    responseSchema: objectSchema({ valid: { type: "boolean" }, digits: { type: "integer", minimum: 0 } }),
    examples: [
      { input: { number: "4539 1488 0343 6467" }, output: { valid: true, digits: 16 } },
      { input: { number: "79927398713" }, output: { valid: true, digits: 11 } },
      { input: { number: "79927398710" }, output: { valid: false, digits: 11 } },
    ],
    edgeCases: [{ input: { number: "0" }, note: "a single digit is not a valid number" }],
    maxResponseBytes: 256,
  }),
};
