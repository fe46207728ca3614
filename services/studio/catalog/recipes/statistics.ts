import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

const n = { type: "number" };

/** Descriptive statistics of a list of numbers. */
export const statisticsRecipe: Recipe = {
  id: "descriptive-statistics",
  title: "Descriptive statistics",
  description:
    "Compute descriptive statistics of a list of numbers: mean, median, mode, min, max, range, variance, standard deviation",
  synonyms: [
    "statistics",
    "stats",
    "mean",
    "average",
    "median",
    "mode",
    "variance",
    "deviation",
    "stddev",
    "sum",
    "minimum",
    "maximum",
    "range",
    "numbers",
    "standard deviation",
  ],
  category: "math",
  tags: ["statistics", "math"],
  parameters: () => ({}),
  build: () => ({
    name: "Descriptive statistics",
    description:
      "Count, sum, mean, median, modes (the most frequent values, ascending), min, max, range, population variance and standard deviation (12 significant digits).",
    compute: String.raw`
const r = (x) => { const v = Number(x.toPrecision(12)); return Object.is(v, -0) ? 0 : v; };
async function compute(input) {
  const xs = [...input.numbers].sort((a, b) => a - b);
  const count = xs.length;
  const sum = xs.reduce((s, x) => s + x, 0);
  const mean = sum / count;
  const mid = Math.floor(count / 2);
  const median = count % 2 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
  const variance = xs.reduce((s, x) => s + (x - mean) * (x - mean), 0) / count;
  const seen = new Map();
  for (const x of xs) seen.set(x, (seen.get(x) || 0) + 1);
  const most = Math.max(...seen.values());
  const modes = [...seen].filter(([, n]) => n === most).map(([x]) => x);
  return { count, sum: r(sum), mean: r(mean), median: r(median), modes, min: xs[0], max: xs[count - 1], range: r(xs[count - 1] - xs[0]), variance: r(variance), standardDeviation: r(Math.sqrt(variance)) };
}`,
    requestSchema: objectSchema({
      numbers: {
        type: "array",
        minItems: 1,
        maxItems: 10_000,
        items: { type: "number", minimum: -1e9, maximum: 1e9 },
      },
    }),
    responseSchema: objectSchema({
      count: { type: "integer", minimum: 1 },
      sum: n,
      mean: n,
      median: n,
      modes: { type: "array", minItems: 1, items: n },
      min: n,
      max: n,
      range: { type: "number", minimum: 0 },
      variance: { type: "number", minimum: 0 },
      standardDeviation: { type: "number", minimum: 0 },
    }),
    examples: [
      {
        input: { numbers: [2, 4, 4, 4, 5, 5, 7, 9] },
        output: {
          count: 8,
          sum: 40,
          mean: 5,
          median: 4.5,
          modes: [4],
          min: 2,
          max: 9,
          range: 7,
          variance: 4,
          standardDeviation: 2,
        },
      },
      {
        input: { numbers: [3] },
        output: {
          count: 1,
          sum: 3,
          mean: 3,
          median: 3,
          modes: [3],
          min: 3,
          max: 3,
          range: 0,
          variance: 0,
          standardDeviation: 0,
        },
      },
      {
        input: { numbers: [1, 2, 3, 4] },
        output: {
          count: 4,
          sum: 10,
          mean: 2.5,
          median: 2.5,
          modes: [1, 2, 3, 4],
          min: 1,
          max: 4,
          range: 3,
          variance: 1.25,
          standardDeviation: 1.11803398875,
        },
      },
    ],
    edgeCases: [{ input: { numbers: [-1, 1] }, note: "a mean of zero" }],
    maxResponseBytes: 260_000,
  }),
};
