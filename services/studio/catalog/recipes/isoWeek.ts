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

/** The ISO 8601 week date of a calendar date. */
export const isoWeekRecipe: Recipe = {
  id: "iso-week",
  title: "ISO week number",
  description: "Return the ISO 8601 week number and week-numbering year of a calendar date",
  synonyms: ["iso", "iso8601", "week", "weeks", "calendar", "kw", "date", "year", ...DATE_FORMAT_WORDS],
  category: "time",
  prefer: /\b(?:iso|calendar) week\b|\bweek (?:number|of the year)\b/i,
  tags: ["date", "calendar", "week"],
  parameters: dateFormatParameter,
  build: (parameters) => {
    const { format, named } = formatOf(parameters);
    return {
      name: `ISO week number${named}`,
      description:
        'The ISO 8601 week-numbering year, week (1 to 53), weekday (Monday 1) and week date ("2025-W01-1") of a date; a day that does not exist is valid: false.',
      compute: String.raw`
${CALENDAR_SOURCE}
async function compute(input) {
  const date = parseDate(input.date);
  if (!date) return { valid: false, year: null, week: null, weekday: null, weekDate: null };
  const weekday = date.getUTCDay() || 7;
  const thursday = new Date(date.getTime() + (4 - weekday) * 86400000);
  const january1 = new Date(0);
  january1.setUTCFullYear(thursday.getUTCFullYear(), 0, 1);
  const week = Math.floor(Math.round((thursday - january1) / 86400000) / 7) + 1;
  const year = thursday.getUTCFullYear();
  const y = (year < 0 ? "-" : "") + String(Math.abs(year)).padStart(4, "0");
  return { valid: true, year, week, weekday, weekDate: y + "-W" + String(week).padStart(2, "0") + "-" + weekday };
}`,
      requestSchema: objectSchema({ date: { type: "string", pattern: datePattern(format) } }),
      responseSchema: objectSchema({
        valid: { type: "boolean" },
        year: { type: ["integer", "null"] },
        week: { type: ["integer", "null"], minimum: 1, maximum: 53 },
        weekday: { type: ["integer", "null"], minimum: 1, maximum: 7 },
        weekDate: { type: ["string", "null"], pattern: "^-?[0-9]{4}-W[0-9]{2}-[1-7]$" },
      }),
      examples: [
        {
          input: { date: writeDate("2024-12-30", format) },
          output: { valid: true, year: 2025, week: 1, weekday: 1, weekDate: "2025-W01-1" },
        },
        {
          input: { date: writeDate("2021-01-03", format) },
          output: { valid: true, year: 2020, week: 53, weekday: 7, weekDate: "2020-W53-7" },
        },
        {
          input: { date: writeDate("2024-07-14", format) },
          output: { valid: true, year: 2024, week: 28, weekday: 7, weekDate: "2024-W28-7" },
        },
      ],
      edgeCases: [{ input: { date: writeDate("0000-01-01", format) }, note: "a week of the year before year 0" }],
      maxResponseBytes: 160,
    };
  },
};
