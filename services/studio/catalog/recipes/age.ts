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

const part = { type: ["integer", "null"], minimum: 0 };

/** Age in completed years, months and days from a birth date to a given date. */
export const ageRecipe: Recipe = {
  id: "age",
  title: "Age from a birth date",
  description: "Compute the age of a person in years, months and days from their birth date on a given date",
  synonyms: [
    "age",
    "old",
    "birth",
    "birthday",
    "birthdate",
    "born",
    "dob",
    "person",
    "years",
    "months",
    ...DATE_FORMAT_WORDS,
  ],
  category: "time",
  tags: ["date", "age"],
  parameters: dateFormatParameter,
  build: (parameters) => {
    const { format, named } = formatOf(parameters);
    return {
      name: `Age from a birth date${named}`,
      description:
        'Completed years, months and days from "birthDate" to "on" (both dates, proleptic Gregorian; a birthday on a day its month lacks, such as 29 February, falls on the last day of that month); valid: false when a day does not exist or "on" is before the birth.',
      compute: String.raw`
${CALENDAR_SOURCE}
async function compute(input) {
  const birth = parseDate(input.birthDate), on = parseDate(input.on);
  if (!birth || !on || on < birth) return { valid: false, years: null, months: null, days: null };
  let months = (on.getUTCFullYear() - birth.getUTCFullYear()) * 12 + on.getUTCMonth() - birth.getUTCMonth();
  const anniversary = (m) => {
    const d = new Date(0);
    d.setUTCFullYear(birth.getUTCFullYear(), birth.getUTCMonth() + m + 1, 0);
    d.setUTCDate(Math.min(birth.getUTCDate(), d.getUTCDate()));
    return d;
  };
  if (anniversary(months) > on) months--;
  const days = Math.round((on - anniversary(months)) / 86400000);
  return { valid: true, years: Math.floor(months / 12), months: months % 12, days };
}`,
      requestSchema: objectSchema({
        birthDate: { type: "string", pattern: datePattern(format) },
        on: { type: "string", pattern: datePattern(format) },
      }),
      responseSchema: objectSchema({ valid: { type: "boolean" }, years: part, months: part, days: part }),
      examples: [
        {
          input: { birthDate: writeDate("1990-05-15", format), on: writeDate("2024-05-14", format) },
          output: { valid: true, years: 33, months: 11, days: 29 },
        },
        {
          input: { birthDate: writeDate("2000-02-29", format), on: writeDate("2023-02-28", format) },
          output: { valid: true, years: 23, months: 0, days: 0 },
        },
        {
          input: { birthDate: writeDate("2024-01-31", format), on: writeDate("2024-03-01", format) },
          output: { valid: true, years: 0, months: 1, days: 1 },
        },
        {
          input: { birthDate: writeDate("2030-01-01", format), on: writeDate("2024-01-01", format) },
          output: { valid: false, years: null, months: null, days: null },
        },
      ],
      edgeCases: [
        {
          input: { birthDate: writeDate("2020-06-01", format), on: writeDate("2020-06-01", format) },
          note: "born today is 0 years",
        },
      ],
      maxResponseBytes: 96,
    };
  },
};
