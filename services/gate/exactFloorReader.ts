import { MAX_AUTHORIZATION_SECONDS } from "../protocol/constants.ts";
import type { JsonClient } from "./createJsonClient.ts";
import { createJsonClient } from "./createJsonClient.ts";

/** Least time between two reads of the facilitator's `GET /pricing/exact` by one gate process (ms). */
export const EXACT_FLOOR_REFRESH_MS = 2_000;

/**
 * How long a reading stands while the reads after it fail (ms): past it the gate knows no amount, and its quote leaves
 * the `exact` entry out rather than ask for an amount that may no longer pay for its settlement.
 */
export const EXACT_FLOOR_MAX_AGE_MS = 30_000;

/** Longest a quote waits for a reading when it knows none (ms). */
export const EXACT_FLOOR_TIMEOUT_MS = 2_000;

/**
 * The least `exact` amount the facilitator settles (its `GET /pricing/exact`), as a gate quotes it: read when a quote
 * asks and the last read is {@link EXACT_FLOOR_REFRESH_MS} old, in the background while the last reading is younger
 * than {@link EXACT_FLOOR_MAX_AGE_MS}, else awaited (at most {@link EXACT_FLOOR_TIMEOUT_MS}).
 */
export type ExactFloorReader = {
  /** The least `exact` amount as last read, or undefined when none was read in the last {@link EXACT_FLOOR_MAX_AGE_MS}. */
  read(): Promise<bigint | undefined>;
  /** The highest amount read at or after `sinceMs` (epoch ms), or undefined: what a quote of that time may have asked. */
  highestSince(sinceMs: number): bigint | undefined;
  close(): void;
};

function amountOf(body: unknown): bigint | undefined {
  const value = (body as { minimumAmount?: unknown } | null)?.minimumAmount;
  return typeof value === "string" && /^(0|[1-9][0-9]{0,77})$/.test(value) ? BigInt(value) : undefined;
}

/**
 * A reader of the facilitator's least `exact` amount over `client` (see {@link ExactFloorReader}). Failed reads are
 * data: the last reading stands until it ages out. Readings are kept an hour (the longest authorization), by amount.
 * @example const floor = createExactFloorReader(createJsonClient({ baseUrl, timeoutMs: 2_000 })); await floor.read()
 */
export function createExactFloorReader(
  client: JsonClient,
  {
    refreshMs = EXACT_FLOOR_REFRESH_MS,
    maxAgeMs = EXACT_FLOOR_MAX_AGE_MS,
    now = Date.now,
  }: { refreshMs?: number; maxAgeMs?: number; now?: () => number } = {},
): ExactFloorReader {
  let last: { amount: bigint; at: number } | undefined;
  let attemptedAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> | undefined;
  /** When each amount was last read: an amount read within a payment's window may have been quoted for it. */
  const readAt = new Map<bigint, number>();

  const fresh = () => last !== undefined && now() - last.at < maxAgeMs;
  const refresh = (): Promise<void> => {
    if (inFlight !== undefined) return inFlight;
    attemptedAt = now();
    inFlight = client
      .request("GET", "/pricing/exact")
      .then((answer) => {
        const amount = answer.ok && answer.status === 200 ? amountOf(answer.body) : undefined;
        if (amount === undefined) return;
        const at = now();
        last = { amount, at };
        readAt.set(amount, at);
        for (const [old, when] of readAt) if (at - when > MAX_AUTHORIZATION_SECONDS * 1000) readAt.delete(old);
      })
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };

  return {
    async read() {
      if (now() - attemptedAt >= refreshMs) {
        const reading = refresh();
        if (!fresh()) await reading;
      } else if (!fresh() && inFlight !== undefined) await inFlight;
      return fresh() ? last?.amount : undefined;
    },
    highestSince(sinceMs) {
      let highest: bigint | undefined;
      for (const [amount, at] of readAt)
        if (at >= sinceMs && (highest === undefined || amount > highest)) highest = amount;
      return highest;
    },
    close: () => client.close(),
  };
}

const shared = new Map<string, { reader: ExactFloorReader; users: number }>();

/**
 * The reader of this process for the facilitator at `url`, shared by every gate that uses it (a host's endpoints ask
 * once for all of them); `release` when done with it, and the last release closes it.
 * @example const { reader, release } = sharedExactFloorReader(url)
 */
export function sharedExactFloorReader(url: string): { reader: ExactFloorReader; release(): void } {
  let entry = shared.get(url);
  if (!entry) {
    entry = {
      reader: createExactFloorReader(
        createJsonClient({ baseUrl: url, timeoutMs: EXACT_FLOOR_TIMEOUT_MS, maxSockets: 1 }),
      ),
      users: 0,
    };
    shared.set(url, entry);
  }
  entry.users++;
  const held = entry;
  let released = false;
  return {
    reader: held.reader,
    release() {
      if (released) return;
      released = true;
      if (--held.users > 0) return;
      held.reader.close();
      if (shared.get(url) === held) shared.delete(url);
    },
  };
}
