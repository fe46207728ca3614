import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** Whether a year is a leap year in the Gregorian calendar. */
export const leapYearRecipe: Recipe = {
  id: "leap-year",
  title: "Leap year check",
  description: "Check whether a year is a leap year in the Gregorian calendar and how many days the year has",
  synonyms: ["leap", "year", "years", "gregorian", "calendar", "february", "bissextile", "count"],
  category: "time",
  tags: ["date", "calendar", "leap-year"],
  parameters: () => ({}),
  build: () => ({
    name: "Leap year check",
    description:
      "Whether a year (proleptic Gregorian, -100000 to 100000) is a leap year: divisible by 4, and not by 100 unless by 400.",
    compute: String.raw`
async function compute(input) {
  const y = input.year;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return { leap, days: leap ? 366 : 365 };
}`,
    requestSchema: objectSchema({ year: { type: "integer", minimum: -100_000, maximum: 100_000 } }),
    responseSchema: objectSchema({ leap: { type: "boolean" }, days: { enum: [365, 366] } }),
    examples: [
      { input: { year: 2024 }, output: { leap: true, days: 366 } },
      { input: { year: 1900 }, output: { leap: false, days: 365 } },
      { input: { year: 2000 }, output: { leap: true, days: 366 } },
      { input: { year: 2023 }, output: { leap: false, days: 365 } },
    ],
    edgeCases: [{ input: { year: -4 }, note: "a negative (astronomical) year divisible by 4" }],
    maxResponseBytes: 64,
  }),
};
