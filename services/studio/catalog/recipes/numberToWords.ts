import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** An integer spelled out in English words (short scale). */
export const numberToWordsRecipe: Recipe = {
  id: "number-to-words",
  title: "Number to words",
  description: "Spell out an integer number in English words, as written on a cheque",
  synonyms: [
    "convert",
    "words",
    "spell",
    "spelled",
    "english",
    "written",
    "cheque",
    "check",
    "amount",
    "verbal",
    "integer",
    "write out",
  ],
  category: "conversion",
  tags: ["number", "words", "conversion"],
  parameters: () => ({}),
  build: () => ({
    name: "Number to words",
    description:
      'An integer of at most 10^15 in magnitude in English words (short scale, "minus" for negatives, hyphens from twenty-one to ninety-nine, no "and").',
    compute: String.raw`
const ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"];
const TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
const SCALES = ["", "thousand", "million", "billion", "trillion", "quadrillion"];
function below1000(n) {
  const words = [];
  if (n >= 100) { words.push(ONES[Math.floor(n / 100)], "hundred"); n %= 100; }
  if (n >= 20) words.push(TENS[Math.floor(n / 10)] + (n % 10 ? "-" + ONES[n % 10] : ""));
  else if (n > 0) words.push(ONES[n]);
  return words.join(" ");
}
async function compute(input) {
  let n = Math.abs(input.number);
  if (n === 0) return { words: "zero" };
  const parts = [];
  for (let scale = 0; n > 0; scale++, n = Math.floor(n / 1000)) {
    const chunk = n % 1000;
    if (chunk) parts.unshift(below1000(chunk) + (SCALES[scale] ? " " + SCALES[scale] : ""));
  }
  return { words: (input.number < 0 ? "minus " : "") + parts.join(" ") };
}`,
    requestSchema: objectSchema({ number: { type: "integer", minimum: -1e15, maximum: 1e15 } }),
    responseSchema: objectSchema({ words: { type: "string", minLength: 1 } }),
    examples: [
      { input: { number: 42 }, output: { words: "forty-two" } },
      {
        input: { number: 1_234_567 },
        output: { words: "one million two hundred thirty-four thousand five hundred sixty-seven" },
      },
      { input: { number: -1_000_005 }, output: { words: "minus one million five" } },
      { input: { number: 0 }, output: { words: "zero" } },
    ],
    edgeCases: [{ input: { number: 1e15 }, note: "one quadrillion" }],
    maxResponseBytes: 1_024,
  }),
};
