import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter } from "../recipe.ts";

const BASES: [RegExp, string][] = [
  [/\bto (?:binary|base ?2)\b/i, "2"],
  [/\bto (?:octal|base ?8)\b/i, "8"],
  [/\bto (?:hex(?:adecimal)?|base ?16)\b/i, "16"],
  [/\bto (?:decimal|base ?10)\b/i, "10"],
  [/\bto base ?36\b/i, "36"],
  [/\bbinary\b/i, "2"],
  [/\boctal\b/i, "8"],
  [/\bhexadecimal\b/i, "16"],
];

/** Integer conversion between bases 2 to 36 (arbitrary size); the target base is read from the sentence. */
export const numberBaseRecipe: Recipe = {
  id: "number-base",
  title: "Number base conversion",
  description: "Convert an integer between number bases such as binary, octal, decimal and hexadecimal",
  synonyms: [
    "base",
    "radix",
    "binary",
    "octal",
    "decimal",
    "hexadecimal",
    "convert",
    "number",
    "integer",
    "bases",
    "base2",
    "base8",
    "base10",
    "base16",
    "base36",
  ],
  category: "math",
  tags: ["base", "radix", "convert"],
  parameters: (sentence) => ({ to: pickParameter(sentence, BASES, "10") }),
  build: ({ to = "10" }) => {
    const target = Number(to);
    return {
      name: `Number base to ${target}`,
      description: `Converts an integer (any size, optional sign) from base "from" (default 10) to base ${target} (or "to").`,
      compute: String.raw`
const DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz";
async function compute(input) {
  const from = input.from || 10;
  const to = input.to || Number(PARAMS.to);
  const negative = input.value.startsWith("-");
  const digits = input.value.replace(/^[-+]/, "").toLowerCase();
  let n = 0n;
  for (const c of digits) {
    const d = DIGITS.indexOf(c);
    if (d < 0 || d >= from) return { valid: false, value: null, base: to };
    n = n * BigInt(from) + BigInt(d);
  }
  let out = "";
  do { out = DIGITS[Number(n % BigInt(to))] + out; n /= BigInt(to); } while (n > 0n);
  return { valid: true, value: (negative && out !== "0" ? "-" : "") + out, base: to };
}`,
      requestSchema: objectSchema(
        {
          value: { type: "string", pattern: "^[-+]?[0-9a-zA-Z]{1,200}$" },
          from: { type: "integer", minimum: 2, maximum: 36 },
          to: { type: "integer", minimum: 2, maximum: 36 },
        },
        ["from", "to"],
      ),
      responseSchema: objectSchema({
        valid: { type: "boolean" },
        value: { type: ["string", "null"], pattern: "^-?[0-9a-z]+$" },
        base: { type: "integer", minimum: 2, maximum: 36 },
      }),
      examples: [
        { input: { value: "255", from: 10 }, output: { valid: true, value: (255).toString(target), base: target } },
        { input: { value: "-ff", from: 16 }, output: { valid: true, value: (-255).toString(target), base: target } },
        { input: { value: "12", from: 2 }, output: { valid: false, value: null, base: target } },
      ],
      edgeCases: [{ input: { value: "0", from: 10 }, note: "zero has no sign" }],
      maxResponseBytes: 2_048,
    };
  },
};
