import { CALENDAR_SOURCE, DATE_PATTERN } from "../calendarSource.ts";
import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** The day of the week and the day of the year of a calendar date. */
export const dayOfWeekRecipe: Recipe = {
  id: "day-of-week",
  title: "Day of the week",
  description: "Return the day of the week (Monday to Sunday) a calendar date falls on, and its day of the year",
  synonyms: ["weekday", "day", "week", "date", "calendar", "monday", "sunday", "falls", "ordinal"],
  category: "time",
  tags: ["date", "calendar", "weekday"],
  parameters: () => ({}),
  build: () => ({
    name: "Day of the week",
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
    requestSchema: objectSchema({ date: { type: "string", pattern: DATE_PATTERN } }),
    responseSchema: objectSchema({
      valid: { type: "boolean" },
      weekday: { enum: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", null] },
      isoWeekday: { type: ["integer", "null"], minimum: 1, maximum: 7 },
      dayOfYear: { type: ["integer", "null"], minimum: 1, maximum: 366 },
    }),
    examples: [
      { input: { date: "2024-07-14" }, output: { valid: true, weekday: "Sunday", isoWeekday: 7, dayOfYear: 196 } },
      { input: { date: "1969-07-20" }, output: { valid: true, weekday: "Sunday", isoWeekday: 7, dayOfYear: 201 } },
      { input: { date: "2000-01-03" }, output: { valid: true, weekday: "Monday", isoWeekday: 1, dayOfYear: 3 } },
      { input: { date: "2023-02-29" }, output: { valid: false, weekday: null, isoWeekday: null, dayOfYear: null } },
    ],
    edgeCases: [{ input: { date: "0000-12-31" }, note: "the last day of year 0" }],
    maxResponseBytes: 128,
  }),
};
