import { replaceOnce } from "./replaceOnce.ts";

/**
 * Ponder 0.16's `processRealtimeEvents`, unlike `processHistoricalEvents`, never tells the indexing cache which event
 * is running. The cache learns from sampled events which rows each handler reads (keys it can derive from the
 * event: its id, an argument, the block) and prefetches them for a whole block in one query; in realtime it kept
 * sampling against the last backfilled event, learned nothing, and its predictions faded out, so every such row cost
 * a lookup query of its own (about 1.4 ms of CPU on PGlite). This adds the missing line. The buyers of a packed
 * `BatchDebited` log are keys the cache cannot derive: bulkUpsertLookup.ts looks them up at once.
 */
export const REALTIME_LOOP = `                const event = events[i];
                client.event = event;
                await executeEvent(event);`;

export const FIXED_REALTIME_LOOP = `                const event = events[i];
                client.event = event;
                indexingCache.event = event;
                await executeEvent(event);`;

/** Ponder's indexing module with the fix applied; throws when it is not the code the fix was written for. */
export function fixRealtimeCache(source: string): string {
  return replaceOnce(source, {
    patch: "realtimeCacheFix.ts",
    what: "processRealtimeEvents (does it set indexingCache.event in realtime now?)",
    original: REALTIME_LOOP,
    replacement: FIXED_REALTIME_LOOP,
  });
}
