import type { Recipe } from "../recipe.ts";
import { objectSchema } from "../recipe.ts";

const DATE = "^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])$";

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
    "weekday",
    "deadline",
    "plus",
    "minus",
    "arithmetic",
  ],
  category: "time",
  tags: ["date", "calendar"],
  parameters: () => ({}),
  build: () => ({
    name: "Add days to a date",
    description: "The ISO date (proleptic Gregorian, UTC) a number of days after (or before) a date, with its weekday.",
    compute: String.raw`
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
function format(d) {
  const y = d.getUTCFullYear();
  const year = (y < 0 ? "-" : "") + String(Math.abs(y)).padStart(4, "0");
  return year + "-" + String(d.getUTCMonth() + 1).padStart(2, "0") + "-" + String(d.getUTCDate()).padStart(2, "0");
}
async function compute(input) {
  const [y, m, d] = input.date.split("-").map(Number);
  const start = new Date(0);
  start.setUTCFullYear(y, m - 1, d);
  if (start.getUTCMonth() !== m - 1 || start.getUTCDate() !== d) return { valid: false, date: null, weekday: null };
  const end = new Date(start.getTime() + input.days * 86400000);
  return { valid: true, date: format(end), weekday: WEEKDAYS[end.getUTCDay()] };
}`,
    requestSchema: objectSchema({
      date: { type: "string", pattern: DATE },
      days: { type: "integer", minimum: -36_500, maximum: 36_500 },
    }),
    responseSchema: objectSchema({
      valid: { type: "boolean" },
      date: { type: ["string", "null"], pattern: "^-?[0-9]{4,6}-[0-9]{2}-[0-9]{2}$" },
      weekday: { type: ["string", "null"] },
    }),
    examples: [
      { input: { date: "2024-02-28", days: 1 }, output: { valid: true, date: "2024-02-29", weekday: "Thursday" } },
      { input: { date: "2025-01-01", days: -1 }, output: { valid: true, date: "2024-12-31", weekday: "Tuesday" } },
      { input: { date: "2023-02-30", days: 0 }, output: { valid: false, date: null, weekday: null } },
    ],
    edgeCases: [{ input: { date: "0001-01-01", days: -1 }, note: "dates before year 1 are negative years" }],
    maxResponseBytes: 256,
  }),
};
