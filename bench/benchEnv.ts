/**
 * A whole number from the environment variable `name` (a bench's size or a time), `fallback` when it is unset or
 * empty. Anything else than a whole number of at least `least` stops the bench before it starts anything, with a
 * line that names the variable and exit code 2, not a stack trace from deep in a run.
 * @example const PAID = envCount("BENCH_GATE_PAID", 2000)
 */
export function envCount(name: string, fallback: number, least = 1): number {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  return wholeNumber(name, raw, raw, least);
}

/**
 * Whole numbers, comma-separated, from the environment variable `name` (`"32,128"`), `fallback` when it is unset;
 * empty means none. Any item that is not a whole number of at least `least` stops the bench as envCount does.
 * @example const CONNECTIONS = envCounts("BENCH_GATE_CONNECTIONS", [32, 128])
 */
export function envCounts(name: string, fallback: number[], least = 1): number[] {
  const raw = process.env[name];
  if (raw === undefined) return fallback;
  return raw
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => wholeNumber(name, raw, item, least));
}

function wholeNumber(name: string, raw: string, item: string, least: number): number {
  const value = Number(item);
  if (/^\d+$/.test(item) && Number.isSafeInteger(value) && value >= least) return value;
  process.stderr.write(
    `${name}=${raw}: must be ${raw === item ? "a whole number" : "whole numbers"} of at least ${least}\n`,
  );
  process.exit(2);
}
