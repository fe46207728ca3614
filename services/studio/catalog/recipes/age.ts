import { CALENDAR_SOURCE, DATE_PATTERN } from "../calendarSource.ts";
import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

const part = { type: ["integer", "null"], minimum: 0 };

/** Age in completed years, months and days from a birth date to a given date. */
export const ageRecipe: Recipe = {
  id: "age",
  title: "Age from a birth date",
  description: "Compute the age of a person in years, months and days from their birth date on a given date",
  synonyms: ["age", "old", "birth", "birthday", "birthdate", "born", "dob", "person", "years", "months"],
  category: "time",
  tags: ["date", "age"],
  parameters: () => ({}),
  build: () => ({
    name: "Age from a birth date",
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
      birthDate: { type: "string", pattern: DATE_PATTERN },
      on: { type: "string", pattern: DATE_PATTERN },
    }),
    responseSchema: objectSchema({ valid: { type: "boolean" }, years: part, months: part, days: part }),
    examples: [
      {
        input: { birthDate: "1990-05-15", on: "2024-05-14" },
        output: { valid: true, years: 33, months: 11, days: 29 },
      },
      { input: { birthDate: "2000-02-29", on: "2023-02-28" }, output: { valid: true, years: 23, months: 0, days: 0 } },
      { input: { birthDate: "2024-01-31", on: "2024-03-01" }, output: { valid: true, years: 0, months: 1, days: 1 } },
      {
        input: { birthDate: "2030-01-01", on: "2024-01-01" },
        output: { valid: false, years: null, months: null, days: null },
      },
    ],
    edgeCases: [{ input: { birthDate: "2020-06-01", on: "2020-06-01" }, note: "born today is 0 years" }],
    maxResponseBytes: 96,
  }),
};
