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

/** The day of the week and the day of the year of a calendar date. */
export const dayOfWeekRecipe: Recipe = {
  id: "day-of-week",
  title: "Day of the week",
  description: "Return the day of the week (Monday to Sunday) a calendar date falls on, and its day of the year",
  synonyms: [
    "weekday",
    "day",
    "week",
    "date",
    "calendar",
    "monday",
    "sunday",
    "falls",
    "ordinal",
    ...DATE_FORMAT_WORDS,
  ],
  category: "time",
  tags: ["date", "calendar", "weekday"],
  parameters: dateFormatParameter,
  build: (parameters) => {
    const { format, named } = formatOf(parameters);
    return {
      name: `Day of the week${named}`,
      description:
        "The weekday name, ISO weekday number (Monday 1 to Sunday 7) and day of the year (1 to 366) of a date (proleptic Gregorian); a day that does not exist is valid: false.",
      compute: String.raw`
${CALENDAR_SOURCE}
async function compute(input) {
  const date = parseDate(input.date);
  if (!date) return { valid: false, weekday: null, isoWeekday: null, dayOfYear: null };
  const start = new Date(0);
  start.setUTCFullYear(date.getUTCFullYear(), 0, 1);
  const day = date.getUTCDay();
  return { valid: true, weekday: WEEKDAYS[day], isoWeekday: day === 0 ? 7 : day, dayOfYear: Math.round((date - start) / 86400000) + 1 };
}`,
      requestSchema: objectSchema({ date: { type: "string", pattern: datePattern(format) } }),
      responseSchema: objectSchema({
        valid: { type: "boolean" },
        weekday: { enum: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", null] },
        isoWeekday: { type: ["integer", "null"], minimum: 1, maximum: 7 },
        dayOfYear: { type: ["integer", "null"], minimum: 1, maximum: 366 },
      }),
      examples: [
        {
          input: { date: writeDate("2024-07-14", format) },
          output: { valid: true, weekday: "Sunday", isoWeekday: 7, dayOfYear: 196 },
        },
        {
          input: { date: writeDate("1969-07-20", format) },
          output: { valid: true, weekday: "Sunday", isoWeekday: 7, dayOfYear: 201 },
        },
        {
          input: { date: writeDate("2000-01-03", format) },
          output: { valid: true, weekday: "Monday", isoWeekday: 1, dayOfYear: 3 },
        },
        {
          input: { date: writeDate("2023-02-29", format) },
          output: { valid: false, weekday: null, isoWeekday: null, dayOfYear: null },
        },
      ],
      edgeCases: [{ input: { date: writeDate("0000-12-31", format) }, note: "the last day of year 0" }],
      maxResponseBytes: 128,
    };
  },
};
