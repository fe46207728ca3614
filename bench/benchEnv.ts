/**
 * A whole number from the environment variable `name` (a bench's size or a time), `fallback` when it is unset or
 * empty. Anything else than a whole number of at least `least` stops the bench before it starts anything, with a
 * line that names the variable and exit code 2, not a stack trace from deep in a run.
 * @example const PAID = envCount("BENCH_GATE_PAID", 2000)
 */
export function envCount(name: string, fallback: number, least = 1): number {
  const raw = process.env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (/^\d+$/.test(raw) && Number.isSafeInteger(value) && value >= least) return value;
  process.stderr.write(`${name}=${raw}: must be a whole number of at least ${least}\n`);
  process.exit(2);
}
