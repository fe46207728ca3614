import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter } from "../recipe.ts";

const value = { type: "number", minimum: -1e12, maximum: 1e12 };

/** The handler's helper: 100 × part / whole to 12 significant digits, null when it is not a finite number. */
const PERCENT = String.raw`
function percent(part, whole) {
  const p = (part / whole) * 100;
  if (!Number.isFinite(p)) return null;
  const rounded = Number(p.toPrecision(12));
  return Object.is(rounded, -0) ? 0 : rounded;
}`;

/** What percentage a part is of a whole, or the percentage change from one value to another. */
export const percentageRecipe: Recipe = {
  id: "percentage",
  title: "Percentage",
  description:
    "Compute what percentage a part is of a whole, or the percentage change (increase or decrease) from one value to another",
  synonyms: [
    "percent",
    "percentage",
    "proportion",
    "ratio",
    "share",
    "fraction",
    "change",
    "increase",
    "decrease",
    "growth",
    "difference",
    "old",
    "new",
    "original",
  ],
  category: "math",
  refuses: /\b\d+(?:\.\d+)?\s*(?:%|percent|per cent)\s+of\b/i,
  tags: ["math", "percentage"],
  parameters: (sentence) => ({
    mode: pickParameter(
      sentence,
      [[/\b(?:change|increase|decrease|growth|difference|from\b.*\bto)\b/i, "change"]],
      "of",
    ),
  }),
  build: ({ mode = "of" }) =>
    mode === "change"
      ? {
          name: "Percentage change",
          description:
            'The change from "from" to "to", and as a percentage of |from| (12 significant digits; null when "from" is 0).',
          compute: String.raw`
${PERCENT}
async function compute(input) {
  const change = input.to - input.from;
  return { change: Number(change.toPrecision(12)), percentage: percent(change, Math.abs(input.from)) };
}`,
          requestSchema: objectSchema({ from: value, to: value }),
          responseSchema: objectSchema({ change: { type: "number" }, percentage: { type: ["number", "null"] } }),
          examples: [
            { input: { from: 80, to: 100 }, output: { change: 20, percentage: 25 } },
            { input: { from: 200, to: 150 }, output: { change: -50, percentage: -25 } },
            { input: { from: 0, to: 5 }, output: { change: 5, percentage: null } },
          ],
          edgeCases: [{ input: { from: -10, to: -5 }, note: "a negative start: the change is relative to its size" }],
          maxResponseBytes: 256,
        }
      : {
          name: "Percentage of a whole",
          description: 'What percentage "part" is of "whole" (12 significant digits); null when "whole" is 0.',
          compute: String.raw`
${PERCENT}
async function compute(input) {
  return { percentage: percent(input.part, input.whole) };
}`,
          requestSchema: objectSchema({ part: value, whole: value }),
          responseSchema: objectSchema({ percentage: { type: ["number", "null"] } }),
          examples: [
            { input: { part: 30, whole: 120 }, output: { percentage: 25 } },
            { input: { part: 1, whole: 3 }, output: { percentage: 33.3333333333 } },
            { input: { part: 5, whole: 0 }, output: { percentage: null } },
          ],
          edgeCases: [{ input: { part: 0, whole: -4 }, note: "zero of a negative whole is 0, not -0" }],
          maxResponseBytes: 128,
        },
};
