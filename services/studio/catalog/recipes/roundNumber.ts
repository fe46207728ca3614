import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter } from "../recipe.ts";

const MODES: [RegExp, string][] = [
  [/\bsignificant\b/i, "significant"],
  [/\bround(?:ed|ing|s)? (?:\w+ ){0,2}up\b(?! to \d)|\bceil(?:ing)?\b/i, "up"],
  [/\bround(?:ed|ing|s)? (?:\w+ ){0,2}down\b|\b(?:floor|truncat\w*)\b/i, "down"],
];

/** A number rounded to decimal places (half away from zero, up or down) or to significant digits. */
export const roundNumberRecipe: Recipe = {
  id: "round-number",
  title: "Round a number",
  description: "Round a number to a given count of decimal places or significant digits, or round it up or down",
  synonyms: [
    "round",
    "rounding",
    "decimals",
    "places",
    "digits",
    "significant",
    "precision",
    "ceil",
    "floor",
    "nearest",
  ],
  category: "math",
  tags: ["math", "round"],
  parameters: (sentence) => ({ mode: pickParameter(sentence, MODES, "half") }),
  build: ({ mode = "half" }) => {
    const samples: Record<string, [number, number, number][]> = {
      half: [
        [12.34567, 2, 12.35],
        [2.5, 0, 3],
        [-1.005, 2, -1.01],
      ],
      up: [
        [5.671, 2, 5.68],
        [-2.5, 0, -2],
        [7, 1, 7],
      ],
      down: [
        [3.149, 2, 3.14],
        [-2.5, 0, -3],
        [1234.5678, 1, 1234.5],
      ],
      significant: [
        [123456, 2, 120000],
        [0.00123456, 3, 0.00123],
        [-98.76, 1, -100],
      ],
    };
    const what = mode === "significant" ? "significant digits" : "decimal places";
    return {
      name:
        mode === "significant"
          ? "Round to significant digits"
          : `Round ${mode === "half" ? "" : `${mode} `}to decimals`,
      description:
        mode === "significant"
          ? 'Rounds a number to "digits" significant digits (1 to 15).'
          : `Rounds a number to "digits" decimal places (0 to 10), ${mode === "half" ? "halves away from zero (as written in decimal)" : mode === "up" ? "towards +infinity" : "towards -infinity"}.`,
      compute: String.raw`
function shift(x, by) { const [m, e] = String(x).split("e"); return Number(m + "e" + (Number(e || 0) + by)); }
async function compute(input) {
  const x = input.number, d = input.digits;
  let result;
  if (PARAMS.mode === "significant") result = x === 0 ? 0 : Number(x.toPrecision(d));
  else {
    const f = PARAMS.mode === "up" ? Math.ceil : PARAMS.mode === "down" ? Math.floor : (v) => Math.sign(v) * Math.round(Math.abs(v));
    result = shift(f(shift(x, d)), -d);
  }
  return { result: Object.is(result, -0) ? 0 : result };
}`,
      requestSchema: objectSchema({
        number: { type: "number", minimum: -1e15, maximum: 1e15 },
        digits:
          mode === "significant"
            ? { type: "integer", minimum: 1, maximum: 15 }
            : { type: "integer", minimum: 0, maximum: 10 },
      }),
      responseSchema: objectSchema({ result: { type: "number" } }),
      examples: (samples[mode] ?? []).map(([number, digits, result]) => ({
        input: { number, digits },
        output: { result },
      })),
      edgeCases: [{ input: { number: 0, digits: 1 }, note: `zero to 1 ${what}` }],
      maxResponseBytes: 128,
    };
  },
};
