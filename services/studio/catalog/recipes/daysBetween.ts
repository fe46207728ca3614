import {
  CALENDAR_SOURCE,
  DATE_FORMAT_WORDS,
  dateFormatParameter,
  datePattern,
  formatOf,
  writeDate,
} from "../calendarSource.ts";
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
    ...DATE_FORMAT_WORDS,
  ],
  category: "time",
  tags: ["date", "calendar", "difference"],
  parameters: dateFormatParameter,
  build: (parameters) => {
    const { format, named } = formatOf(parameters);
    return {
      name: `Days between dates${named}`,
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
        from: { type: "string", pattern: datePattern(format) },
        to: { type: "string", pattern: datePattern(format) },
      }),
      responseSchema: objectSchema({
        valid: { type: "boolean" },
        days: { type: ["integer", "null"] },
        weeks: { type: ["integer", "null"] },
      }),
      examples: [
        {
          input: { from: writeDate("2024-01-01", format), to: writeDate("2024-12-31", format) },
          output: { valid: true, days: 365, weeks: 52 },
        },
        {
          input: { from: writeDate("2025-03-10", format), to: writeDate("2025-03-01", format) },
          output: { valid: true, days: -9, weeks: -1 },
        },
        {
          input: { from: writeDate("2023-02-29", format), to: writeDate("2023-03-01", format) },
          output: { valid: false, days: null, weeks: null },
        },
      ],
      edgeCases: [
        {
          input: { from: writeDate("2000-01-01", format), to: writeDate("2000-01-01", format) },
          note: "the same day is 0",
        },
      ],
      maxResponseBytes: 96,
    };
  },
};
