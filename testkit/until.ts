import { sleep } from "./sleep.ts";
/**
 * Polls `probe` every `intervalMs` until it yields a value other than undefined, and returns that value; fails
 * after `timeoutMs`, naming `what`.
 * @example const row = await until(async () => (await findRow()) ?? undefined, 15_000, "the settled row")
 */
export async function until<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
  what = "condition",
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached in ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}
