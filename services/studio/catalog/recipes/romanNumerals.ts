import { bindRange } from "../bindRange.ts";
import { rangeSamples } from "../rangeSamples.ts";
import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter } from "../recipe.ts";

const TABLE = String.raw`
const TABLE = [[1000, "M"], [900, "CM"], [500, "D"], [400, "CD"], [100, "C"], [90, "XC"], [50, "L"], [40, "XL"], [10, "X"], [9, "IX"], [5, "V"], [4, "IV"], [1, "I"]];
function toRoman(n) { let out = ""; for (const [v, s] of TABLE) while (n >= v) { out += s; n -= v; } return out; }`;

const LIMITS = { minimum: 1, maximum: 3999 };
const NUMERALS: [number, string][] = [
  [1000, "M"],
  [900, "CM"],
  [500, "D"],
  [400, "CD"],
  [100, "C"],
  [90, "XC"],
  [50, "L"],
  [40, "XL"],
  [10, "X"],
  [9, "IX"],
  [5, "V"],
  [4, "IV"],
  [1, "I"],
];

/** The canonical numeral of an integer: the independent oracle of the examples. */
function toRoman(n: number): string {
  let out = "";
  let rest = n;
  for (const [value, numeral] of NUMERALS)
    while (rest >= value) {
      out += numeral;
      rest -= value;
    }
  return out;
}

/** Roman numerals: an integer 1..3999 to a numeral, or a numeral back to its integer (strictly canonical). */
export const romanNumeralsRecipe: Recipe = {
  id: "roman-numerals",
  title: "Roman numerals",
  description: "Convert a number to Roman numerals, or Roman numerals back to a number",
  synonyms: ["roman", "numerals", "numeral", "convert", "number", "latin", "mcmxc"],
  category: "conversion",
  tags: ["roman", "numerals"],
  limits: LIMITS,
  parameters: (sentence) => {
    const mode = pickParameter(
      sentence,
      [
        [
          /from roman|roman numerals?\b.*\b(?:in)?to (?:an? |the )?(?:numbers?|integers?|arabic|decimal)|(?:parse|read|decode) (?:an? |the )?roman/i,
          "parse",
        ],
      ],
      "format",
    );
    return mode === "parse" ? { mode } : { mode, ...bindRange(sentence, LIMITS) };
  },
  build: ({ mode = "format", ...range }) =>
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
          name: range.maximum
            ? `Number to Roman numerals (${range.minimum} to ${range.maximum})`
            : "Number to Roman numerals",
          description: `The canonical Roman numeral of an integer from ${range.minimum ?? 1} to ${range.maximum ?? 3999}.`,
          compute: `${TABLE}
async function compute(input) {
  return { roman: toRoman(input.number) };
}`,
          requestSchema: objectSchema({
            number: {
              type: "integer",
              minimum: Number(range.minimum ?? LIMITS.minimum),
              maximum: Number(range.maximum ?? LIMITS.maximum),
            },
          }),
          responseSchema: objectSchema({ roman: { type: "string", pattern: "^[IVXLCDM]+$" } }),
          examples: rangeSamples(range, LIMITS, [1994, 4, 49]).map((number) => ({
            input: { number },
            output: { roman: toRoman(number) },
          })),
          edgeCases: [
            { input: { number: Number(range.minimum ?? LIMITS.minimum) }, note: "the smallest numeral taken" },
          ],
          maxResponseBytes: 256,
        },
};
