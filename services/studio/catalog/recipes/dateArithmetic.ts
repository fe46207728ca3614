import {
  CALENDAR_SOURCE,
  DATE_FORMAT_WORDS,
  dateFormatParameter,
  dateOutPattern,
  datePattern,
  formatOf,
  writeDate,
} from "../calendarSource.ts";
import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

/** Adds (or subtracts) days to a calendar date; impossible dates are reported as data. */
export const dateArithmeticRecipe: Recipe = {
  id: "date-add-days",
  title: "Date arithmetic",
  description: "Add or subtract a number of days to a calendar date and return the resulting date and weekday",
  synonyms: [
    "date",
    "dates",
    "days",
    "add",
    "subtract",
    "calendar",
    "deadline",
    "plus",
    "minus",
    "arithmetic",
    ...DATE_FORMAT_WORDS,
    "new",
    "resulting",
    "before",
    "after",
    "later",
    "earlier",
    "ago",
  ],
  category: "time",
  tags: ["date", "calendar"],
  parameters: dateFormatParameter,
  build: (parameters) => {
    const { format, named } = formatOf(parameters);
    return {
      name: `Add days to a date${named}`,
      description: `The date (${format}, proleptic Gregorian, UTC) a number of days after (or before) a date, with its weekday.`,
      compute: String.raw`
${CALENDAR_SOURCE}
async function compute(input) {
  const start = parseDate(input.date);
  if (!start) return { valid: false, date: null, weekday: null };
  const end = new Date(start.getTime() + input.days * 86400000);
  return { valid: true, date: formatDate(end), weekday: WEEKDAYS[end.getUTCDay()] };
}`,
      requestSchema: objectSchema({
        date: { type: "string", pattern: datePattern(format) },
        days: { type: "integer", minimum: -36_500, maximum: 36_500 },
      }),
      responseSchema: objectSchema({
        valid: { type: "boolean" },
        date: { type: ["string", "null"], pattern: dateOutPattern(format) },
        weekday: { type: ["string", "null"] },
      }),
      examples: [
        {
          input: { date: writeDate("2024-02-28", format), days: 1 },
          output: { valid: true, date: writeDate("2024-02-29", format), weekday: "Thursday" },
        },
        {
          input: { date: writeDate("2025-01-01", format), days: -1 },
          output: { valid: true, date: writeDate("2024-12-31", format), weekday: "Tuesday" },
        },
        {
          input: { date: writeDate("2023-02-30", format), days: 0 },
          output: { valid: false, date: null, weekday: null },
        },
      ],
      edgeCases: [
        { input: { date: writeDate("0001-01-01", format), days: -1 }, note: "dates before year 1 are negative years" },
      ],
      maxResponseBytes: 256,
    };
  },
};
