/** The date formats the date recipes take (and answer in), ISO 8601's first. */
export const DATE_FORMATS = ["YYYY-MM-DD", "DD/MM/YYYY", "MM/DD/YYYY"] as const;

/** One of `DATE_FORMATS`. */
export type DateFormat = (typeof DATE_FORMATS)[number];

/** Words that name a date format, for the date recipes' vocabularies. */
export const DATE_FORMAT_WORDS = [
  "iso",
  "iso8601",
  "format",
  "formatted",
  "style",
  "yyyy",
  "mm",
  "dd",
  "european",
  "american",
  "british",
];

const DAY = "(?:0[1-9]|[12][0-9]|3[01])";
const MONTH = "(?:0[1-9]|1[0-2])";

/**
 * The date format a sentence names: day first ("DD/MM/YYYY", "European", "UK"), month first ("MM/DD/YYYY",
 * "American", "US"), else ISO 8601 ("YYYY-MM-DD").
 * @example dateFormatOf("days between two dates written as DD/MM/YYYY") // "DD/MM/YYYY"
 */
export function dateFormatOf(sentence: string): DateFormat {
  if (
    /\bdd[\s/.-]mm[\s/.-]yy(?:yy)?\b|\bday[\s-]first\b|\beuropean\b|\bbritish\b/i.test(sentence) ||
    /\bUK\b/.test(sentence)
  )
    return "DD/MM/YYYY";
  if (
    /\bmm[\s/.-]dd[\s/.-]yy(?:yy)?\b|\bmonth[\s-]first\b|\bamerican\b/i.test(sentence) ||
    /\bU\.?S\.?\b/.test(sentence)
  )
    return "MM/DD/YYYY";
  return "YYYY-MM-DD";
}

/** The request schema pattern of a calendar date in a format (the day may still not exist, e.g. 2023-02-30). */
export function datePattern(format: DateFormat = "YYYY-MM-DD"): string {
  if (format === "DD/MM/YYYY") return `^${DAY}/${MONTH}/[0-9]{4}$`;
  if (format === "MM/DD/YYYY") return `^${MONTH}/${DAY}/[0-9]{4}$`;
  return `^[0-9]{4}-${MONTH}-${DAY}$`;
}

/** The response schema pattern of a date the recipes answer: a sign and more digits outside years 0000 to 9999. */
export function dateOutPattern(format: DateFormat = "YYYY-MM-DD"): string {
  return format === "YYYY-MM-DD" ? "^-?[0-9]{4,6}-[0-9]{2}-[0-9]{2}$" : "^[0-9]{2}/[0-9]{2}/-?[0-9]{4,6}$";
}

/**
 * An ISO date ("2024-07-14", "-0001-12-31") written in a format, for the recipes' examples.
 * @example writeDate("2024-07-14", "MM/DD/YYYY") // "07/14/2024"
 */
export function writeDate(iso: string, format: DateFormat = "YYYY-MM-DD"): string {
  const [, year, month, day] = /^(-?\d+)-(\d{2})-(\d{2})$/.exec(iso) ?? [];
  if (format === "DD/MM/YYYY") return `${day}/${month}/${year}`;
  if (format === "MM/DD/YYYY") return `${month}/${day}/${year}`;
  return iso;
}

/** The format parameter of a date recipe, read from the sentence. */
export const dateFormatParameter = (sentence: string) => ({ format: dateFormatOf(sentence) });

/**
 * The format a date recipe is built with (ISO when its parameters predate the format), and what its name adds for
 * it (nothing for ISO, " (DD/MM/YYYY)" otherwise).
 */
export function formatOf(parameters: Record<string, string | undefined>): { format: DateFormat; named: string } {
  const format = DATE_FORMATS.find((f) => f === parameters.format) ?? "YYYY-MM-DD";
  return { format, named: format === "YYYY-MM-DD" ? "" : ` (${format})` };
}

/**
 * Handler source shared by the date recipes (proleptic Gregorian, UTC), for `PARAMS.format`: `WEEKDAYS`,
 * `parseDate(text)` (a `Date` at midnight UTC, or null for a day that does not exist) and `formatDate(date)`.
 */
export const CALENDAR_SOURCE = `
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const FORMAT = PARAMS.format || "YYYY-MM-DD";
function parseDate(text) {
  let y, m, d;
  if (FORMAT === "YYYY-MM-DD") [y, m, d] = text.split("-").map(Number);
  else {
    const [a, b, c] = text.split("/").map(Number);
    y = c;
    [d, m] = FORMAT === "DD/MM/YYYY" ? [a, b] : [b, a];
  }
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  return date.getUTCMonth() === m - 1 && date.getUTCDate() === d ? date : null;
}
function formatDate(date) {
  const y = date.getUTCFullYear();
  const year = (y < 0 ? "-" : "") + String(Math.abs(y)).padStart(4, "0");
  const month = String(date.getUTCMonth() + 1).padStart(2, "0");
  const day = String(date.getUTCDate()).padStart(2, "0");
  if (FORMAT === "DD/MM/YYYY") return day + "/" + month + "/" + year;
  if (FORMAT === "MM/DD/YYYY") return month + "/" + day + "/" + year;
  return year + "-" + month + "-" + day;
}`;
