import type { Recipe } from "../recipe.ts";
import { objectSchema, pickParameter } from "../recipe.ts";

/** Unix timestamps to ISO 8601 date-times (UTC), or back; the direction is read from the sentence. */
export const unixTimeRecipe: Recipe = {
  id: "unix-time",
  title: "Unix timestamp conversion",
  description:
    "Convert a Unix timestamp (epoch seconds) to an ISO 8601 date and time in UTC, or a date and time to a Unix timestamp",
  synonyms: [
    "unix",
    "epoch",
    "timestamp",
    "posix",
    "seconds",
    "milliseconds",
    "iso",
    "iso8601",
    "utc",
    "datetime",
    "date",
    "time",
    "convert",
    "string",
  ],
  category: "time",
  tags: ["time", "unix", "conversion"],
  parameters: (sentence) => ({
    direction: pickParameter(
      sentence,
      [[/\b(?:to|into) (?:an? )?(?:unix|epoch|posix)|\b(?:from|parse) (?:an? )?(?:iso|date)/i, "to-unix"]],
      "to-iso",
    ),
  }),
  build: ({ direction = "to-iso" }) =>
    direction === "to-unix"
      ? {
          name: "Date-time to Unix timestamp",
          description:
            "An ISO 8601 date-time with a time zone (Z or ±hh:mm), or a date (midnight UTC), as Unix seconds (floored) and milliseconds; valid: false when it does not exist.",
          compute: String.raw`
const FORM = /^(-?\d{4,6})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2}))?$/;
async function compute(input) {
  const m = FORM.exec(input.datetime);
  const none = { valid: false, seconds: null, milliseconds: null };
  if (!m) return none;
  const [, y, mo, d, h = "0", mi = "0", s = "0", frac = "0", zone = "Z"] = m;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  if (date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d) || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return none;
  const offset = zone === "Z" ? 0 : (zone[0] === "-" ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  if (Math.abs(offset) > 18 * 60) return none;
  const ms = date.getTime() + ((Number(h) * 60 + Number(mi) - offset) * 60 + Number(s)) * 1000 + Number(frac.padEnd(3, "0").slice(0, 3));
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return none;
  return { valid: true, seconds: Math.floor(ms / 1000), milliseconds: ms };
}`,
          requestSchema: objectSchema({ datetime: { type: "string", maxLength: 40 } }),
          responseSchema: objectSchema({
            valid: { type: "boolean" },
            seconds: { type: ["integer", "null"] },
            milliseconds: { type: ["integer", "null"] },
          }),
          examples: [
            {
              input: { datetime: "2024-01-01T00:00:00Z" },
              output: { valid: true, seconds: 1_704_067_200, milliseconds: 1_704_067_200_000 },
            },
            {
              input: { datetime: "2009-02-14T01:31:30.5+02:00" },
              output: { valid: true, seconds: 1_234_567_890, milliseconds: 1_234_567_890_500 },
            },
            { input: { datetime: "1970-01-01" }, output: { valid: true, seconds: 0, milliseconds: 0 } },
            {
              input: { datetime: "2023-02-29T10:00:00Z" },
              output: { valid: false, seconds: null, milliseconds: null },
            },
          ],
          edgeCases: [{ input: { datetime: "1969-12-31T23:59:59.999Z" }, note: "just before the epoch floors to -1" }],
          maxResponseBytes: 128,
        }
      : {
          name: "Unix timestamp to date-time",
          description:
            'Unix seconds (or milliseconds with "unit": "milliseconds"), at most 8.64e12 in magnitude, as an ISO 8601 date-time in UTC, with its date and weekday.',
          compute: String.raw`
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
async function compute(input) {
  const ms = input.unit === "milliseconds" ? input.timestamp : input.timestamp * 1000;
  const date = new Date(ms);
  return { iso: date.toISOString(), date: date.toISOString().replace(/T.*$/, ""), weekday: WEEKDAYS[date.getUTCDay()] };
}`,
          requestSchema: objectSchema(
            {
              timestamp: { type: "integer", minimum: -8.64e12, maximum: 8.64e12 },
              unit: { enum: ["seconds", "milliseconds"] },
            },
            ["unit"],
          ),
          responseSchema: objectSchema({
            iso: {
              type: "string",
              pattern: "^[-+]?[0-9]{4,6}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$",
            },
            date: { type: "string" },
            weekday: { type: "string" },
          }),
          examples: [
            {
              input: { timestamp: 1_700_000_000 },
              output: { iso: "2023-11-14T22:13:20.000Z", date: "2023-11-14", weekday: "Tuesday" },
            },
            {
              input: { timestamp: 0 },
              output: { iso: "1970-01-01T00:00:00.000Z", date: "1970-01-01", weekday: "Thursday" },
            },
            {
              input: { timestamp: -86_400_001, unit: "milliseconds" },
              output: { iso: "1969-12-30T23:59:59.999Z", date: "1969-12-30", weekday: "Tuesday" },
            },
          ],
          edgeCases: [{ input: { timestamp: 8_640_000_000_000 }, note: "the largest timestamp taken" }],
          maxResponseBytes: 160,
        },
};
