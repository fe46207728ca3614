/**
 * Ponder 0.16's `processRealtimeEvents`, unlike `processHistoricalEvents`, never tells the indexing cache which event
 * is running. The cache learns from sampled events which rows each handler reads (here the new `debit` row's key,
 * which an insert on PGlite looks up to detect a conflict) and prefetches them for a whole block in one query; in
 * realtime it kept sampling against the last backfilled event, learned nothing, and its predictions faded out, so
 * every `Debited` cost one lookup query of its own (about 1.4 ms of CPU on PGlite). This adds the missing line.
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
  if (source.includes(FIXED_REALTIME_LOOP)) return source;
  const at = source.indexOf(REALTIME_LOOP);
  if (at < 0 || source.indexOf(REALTIME_LOOP, at + 1) >= 0)
    throw new Error(
      "indexer/ponder/realtimeCacheFix.ts: Ponder's processRealtimeEvents is not the 0.16 code it patches; check whether the installed Ponder sets indexingCache.event in realtime and drop or update the fix",
    );
  return source.replace(REALTIME_LOOP, FIXED_REALTIME_LOOP);
}
