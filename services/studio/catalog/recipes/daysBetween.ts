import { CALENDAR_SOURCE, DATE_PATTERN } from "../calendarSource.ts";
import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** The number of days from one calendar date to another. */
export const daysBetweenRecipe: Recipe = {
  id: "days-between",
  title: "Days between dates",
  description: "Count the number of days and weeks between two calendar dates",
  synonyms: [
    "days",
    "between",
    "difference",
    "elapsed",
    "until",
    "since",
    "duration",
    "dates",
    "interval",
    "countdown",
    "weeks",
  ],
  category: "time",
  tags: ["date", "calendar", "difference"],
  parameters: () => ({}),
  build: () => ({
    name: "Days between dates",
    description:
      'The signed number of days from "from" to "to" (proleptic Gregorian), and whole weeks; a day that does not exist is valid: false.',
    compute: String.raw`
${CALENDAR_SOURCE}
async function compute(input) {
  const from = parseDate(input.from), to = parseDate(input.to);
  if (!from || !to) return { valid: false, days: null, weeks: null };
  const days = Math.round((to - from) / 86400000);
  return { valid: true, days, weeks: Math.trunc(days / 7) + 0 };
}`,
    requestSchema: objectSchema({
      from: { type: "string", pattern: DATE_PATTERN },
      to: { type: "string", pattern: DATE_PATTERN },
    }),
    responseSchema: objectSchema({
      valid: { type: "boolean" },
      days: { type: ["integer", "null"] },
      weeks: { type: ["integer", "null"] },
    }),
    examples: [
      { input: { from: "2024-01-01", to: "2024-12-31" }, output: { valid: true, days: 365, weeks: 52 } },
      { input: { from: "2025-03-10", to: "2025-03-01" }, output: { valid: true, days: -9, weeks: -1 } },
      { input: { from: "2023-02-29", to: "2023-03-01" }, output: { valid: false, days: null, weeks: null } },
    ],
    edgeCases: [{ input: { from: "2000-01-01", to: "2000-01-01" }, note: "the same day is 0" }],
    maxResponseBytes: 96,
  }),
};
