/** A calendar date as the date recipes take it: `YYYY-MM-DD` (the day may still not exist, e.g. 2023-02-30). */
export const DATE_PATTERN = "^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])$";

/** A date as the date recipes answer it: ISO, a sign and more digits outside years 0000 to 9999. */
export const DATE_OUT_PATTERN = "^-?[0-9]{4,6}-[0-9]{2}-[0-9]{2}$";

/**
 * Handler source shared by the date recipes (proleptic Gregorian, UTC): `WEEKDAYS`, `parseDate(text)` (a `Date`
 * at midnight UTC, or null for a day that does not exist) and `formatDate(date)`.
 */
export const CALENDAR_SOURCE = `
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
function parseDate(text) {
  const [y, m, d] = text.split("-").map(Number);
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  return date.getUTCMonth() === m - 1 && date.getUTCDate() === d ? date : null;
}
function formatDate(date) {
  const y = date.getUTCFullYear();
  const year = (y < 0 ? "-" : "") + String(Math.abs(y)).padStart(4, "0");
  return year + "-" + String(date.getUTCMonth() + 1).padStart(2, "0") + "-" + String(date.getUTCDate()).padStart(2, "0");
}`;
