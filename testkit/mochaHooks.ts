/**
 * Root hooks of the mocha suites (`--require testkit/mochaHooks.ts`), and the reuse of in-memory stores' databases
 * below. In parallel mode a worker sends its results to the main process as JSON, and a failed test's error that
 * holds a BigInt in one of its properties (viem's `args`, a custom `data`; chai's actual and expected are handled by
 * mocha itself) cannot be serialized: mocha then aborts the whole run with "Do not know how to serialize a BigInt"
 * instead of reporting the one failure. This writes such values as strings (`12n`) in the error before it is sent.
 * Product code is untouched, so a BigInt it serializes by mistake still fails its test.
 */
import type { Context } from "mocha";
import { reuseMemoryDatabases } from "../services/store/pgliteReuse.ts";

// A test process opens dozens of in-memory stores one after another: each takes the last one's database, wiped,
// instead of loading a fresh cluster (0.5 to 1 s of CPU each). Kept for a few seconds, so a process still ends soon.
await reuseMemoryDatabases({ idleMs: 5_000, max: 2 });

function plain(value: unknown, seen = new WeakSet<object>()): unknown {
  if (typeof value === "bigint") return `${value}n`;
  if (value === null || typeof value !== "object" || seen.has(value)) return value;
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => plain(item, seen));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item, seen)]));
}

/** Whether JSON cannot write `value` because of a BigInt in it. */
function holdsBigInt(value: unknown): boolean {
  try {
    JSON.stringify(value);
    return false;
  } catch (error) {
    return error instanceof TypeError && /BigInt/.test(error.message);
  }
}

export const mochaHooks = {
  afterEach(this: Context) {
    const error = this.currentTest?.err as Record<string, unknown> | undefined;
    if (!error) return;
    for (const key of Object.keys(error)) {
      if (holdsBigInt(error[key])) error[key] = plain(error[key]);
    }
  },
};
