import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter } from "../recipe.ts";

const TABLE = String.raw`
const TABLE = [[1000, "M"], [900, "CM"], [500, "D"], [400, "CD"], [100, "C"], [90, "XC"], [50, "L"], [40, "XL"], [10, "X"], [9, "IX"], [5, "V"], [4, "IV"], [1, "I"]];
function toRoman(n) { let out = ""; for (const [v, s] of TABLE) while (n >= v) { out += s; n -= v; } return out; }`;

/** Roman numerals: an integer 1..3999 to a numeral, or a numeral back to its integer (strictly canonical). */
export const romanNumeralsRecipe: Recipe = {
  id: "roman-numerals",
  title: "Roman numerals",
  description: "Convert a number to Roman numerals, or Roman numerals back to a number",
  synonyms: ["roman", "numerals", "numeral", "convert", "number", "latin", "mcmxc"],
  category: "conversion",
  tags: ["roman", "numerals"],
  parameters: (sentence) => ({
    mode: pickParameter(
      sentence,
      [[/from roman|roman numerals? (?:in)?to (?:a |an )?(?:number|integer|arabic)|parse roman/i, "parse"]],
      "format",
    ),
  }),
  build: ({ mode = "format" }) =>
    mode === "parse"
      ? {
          name: "Roman numerals to number",
          description: "The integer of a canonical Roman numeral (I to MMMCMXCIX); anything else is valid: false.",
          compute: `${TABLE}
async function compute(input) {
  const roman = input.roman.toUpperCase();
  const values = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 };
  let n = 0;
  for (let i = 0; i < roman.length; i++) {
    const v = values[roman[i]], next = values[roman[i + 1]] || 0;
    n += v < next ? -v : v;
  }
  return n >= 1 && n <= 3999 && toRoman(n) === roman ? { valid: true, number: n } : { valid: false, number: null };
}`,
          requestSchema: objectSchema({ roman: { type: "string", pattern: "^[IVXLCDMivxlcdm]{1,20}$" } }),
          responseSchema: objectSchema({
            valid: { type: "boolean" },
            number: { type: ["integer", "null"], minimum: 1, maximum: 3999 },
          }),
          examples: [
            { input: { roman: "MCMXCIV" }, output: { valid: true, number: 1994 } },
            { input: { roman: "xlii" }, output: { valid: true, number: 42 } },
            { input: { roman: "IIII" }, output: { valid: false, number: null } },
          ],
          edgeCases: [{ input: { roman: "MMMM" }, note: "4000 has no canonical numeral" }],
          maxResponseBytes: 256,
        }
      : {
          name: "Number to Roman numerals",
          description: "The canonical Roman numeral of an integer from 1 to 3999.",
          compute: `${TABLE}
async function compute(input) {
  return { roman: toRoman(input.number) };
}`,
          requestSchema: objectSchema({ number: { type: "integer", minimum: 1, maximum: 3999 } }),
          responseSchema: objectSchema({ roman: { type: "string", pattern: "^[IVXLCDM]+$" } }),
          examples: [
            { input: { number: 1994 }, output: { roman: "MCMXCIV" } },
            { input: { number: 3999 }, output: { roman: "MMMCMXCIX" } },
            { input: { number: 4 }, output: { roman: "IV" } },
          ],
          edgeCases: [{ input: { number: 1 }, note: "the smallest numeral" }],
          maxResponseBytes: 256,
        },
};
