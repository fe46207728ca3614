import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** Units by dimension: factor to the base unit (metre, kilogram), or a temperature scale. */
const UNITS: Record<string, Record<string, number>> = {
  length: { m: 1, km: 1000, cm: 0.01, mm: 0.001, mi: 1609.344, yd: 0.9144, ft: 0.3048, in: 0.0254 },
  mass: { kg: 1, g: 0.001, mg: 0.000001, t: 1000, lb: 0.45359237, oz: 0.028349523125 },
  temperature: { C: 1, F: 1, K: 1 },
};

const WORDS: [RegExp, string][] = [
  [/\bkilomet(?:re|er)s?\b|\bkm\b/i, "km"],
  [/\bcentimet(?:re|er)s?\b|\bcm\b/i, "cm"],
  [/\bmillimet(?:re|er)s?\b|\bmm\b/i, "mm"],
  [/\bmet(?:re|er)s?\b/i, "m"],
  [/\bmiles?\b/i, "mi"],
  [/\byards?\b/i, "yd"],
  [/\bf(?:oo|ee)t\b/i, "ft"],
  [/\binch(?:es)?\b/i, "in"],
  [/\bkilograms?\b|\bkilos?\b|\bkg\b/i, "kg"],
  [/\bmilligrams?\b|\bmg\b/i, "mg"],
  [/\bgrams?\b/i, "g"],
  [/\btonnes?\b/i, "t"],
  [/\bpounds?\b|\blbs?\b/i, "lb"],
  [/\bounces?\b|\boz\b/i, "oz"],
  [/\bcelsius\b|\bcentigrade\b/i, "C"],
  [/\bfahrenheit\b/i, "F"],
  [/\bkelvin\b/i, "K"],
];

function unitsIn(text: string): string[] {
  return WORDS.flatMap(([pattern, unit]) => {
    const match = pattern.exec(text);
    return match ? [{ unit, at: match.index }] : [];
  })
    .sort((a, b) => a.at - b.at)
    .map((u) => u.unit);
}

function dimensionOf(unit: string): string {
  return Object.keys(UNITS).find((d) => unit in (UNITS[d] ?? {})) ?? "length";
}

/** Converts lengths, masses or temperatures; the target unit is read from the sentence ("in kilometres"). */
export const convertUnitsRecipe: Recipe = {
  id: "convert-units",
  title: "Unit conversion",
  description: "Convert a length, distance, weight, mass or temperature value from one unit to another",
  synonyms: [
    "convert",
    "conversion",
    "units",
    "metric",
    "imperial",
    "kilometres",
    "kilometers",
    "miles",
    "metres",
    "meters",
    "feet",
    "inches",
    "kilograms",
    "pounds",
    "grams",
    "ounces",
    "celsius",
    "fahrenheit",
    "kelvin",
    "temperature",
    "distance",
    "weight",
    "degree",
    "degrees",
    "centimetres",
    "centimeters",
    "millimetres",
    "millimeters",
    "yards",
    "tonnes",
    "milligrams",
    "kilos",
    "km",
    "cm",
    "mm",
    "kg",
    "lbs",
    "oz",
    "ft",
  ],
  category: "conversion",
  tags: ["units", "conversion"],
  parameters: (sentence) => {
    const asked = unitsIn(/\bhow many (\w+)/i.exec(sentence)?.[1] ?? "")[0];
    const after = /^.*\b(?:to|into|in)\b(.*)$/i.exec(sentence)?.[1] ?? "";
    const target = asked ?? unitsIn(after)[0] ?? unitsIn(sentence).at(-1) ?? "m";
    return { to: target, dimension: dimensionOf(target) };
  },
  build: ({ to = "m" }) => {
    const dimension = dimensionOf(to);
    const units = Object.keys(UNITS[dimension] ?? {});
    const samples: Record<string, [number, string, number][]> = {
      length: [
        [1, "mi", 1609.344],
        [5, "km", 5000],
        [12, "in", 0.3048],
      ],
      mass: [
        [1, "lb", 0.45359237],
        [500, "g", 0.5],
        [2, "t", 2000],
      ],
      temperature: [
        [100, "C", 100],
        [32, "F", 0],
        [0, "K", -273.15],
      ],
    };
    const fromBase = (value: number) => {
      if (dimension === "temperature") return to === "C" ? value : to === "F" ? (value * 9) / 5 + 32 : value + 273.15;
      return value / (UNITS[dimension]?.[to] ?? 1);
    };
    return {
      name: `Convert ${dimension} to ${to}`,
      description: `Converts a ${dimension} value to ${to} (or to the unit given in "to"), to 12 significant digits.`,
      compute: String.raw`
const UNITS = ${JSON.stringify(UNITS[dimension])};
function toBase(v, u) {
  if (PARAMS.dimension !== "temperature") return v * UNITS[u];
  return u === "C" ? v : u === "F" ? (v - 32) * 5 / 9 : v - 273.15;
}
function fromBase(v, u) {
  if (PARAMS.dimension !== "temperature") return v / UNITS[u];
  return u === "C" ? v : u === "F" ? v * 9 / 5 + 32 : v + 273.15;
}
async function compute(input) {
  const to = input.to || PARAMS.to;
  const value = Number(fromBase(toBase(input.value, input.from), to).toPrecision(12));
  return { value: Object.is(value, -0) ? 0 : value, unit: to };
}`,
      requestSchema: objectSchema(
        {
          value: { type: "number", minimum: -1e12, maximum: 1e12 },
          from: { enum: units },
          to: { enum: units },
        },
        ["to"],
      ),
      responseSchema: objectSchema({ value: { type: "number" }, unit: { enum: units } }),
      examples: (samples[dimension] ?? []).map(([value, from, base]) => {
        const converted = Number(fromBase(base).toPrecision(12));
        return { input: { value, from }, output: { value: Object.is(converted, -0) ? 0 : converted, unit: to } };
      }),
      edgeCases: [{ input: { value: 0, from: units[0] ?? "m" }, note: "zero converts (temperatures shift)" }],
      maxResponseBytes: 256,
    };
  },
};
