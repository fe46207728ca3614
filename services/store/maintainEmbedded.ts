import type { Store } from "./store.ts";

/**
 * On PGlite, what PostgreSQL's background workers do by themselves: VACUUM `tables`, then CHECKPOINT.
 * - PGlite runs no autovacuum: a deleted row's space is never recorded as free, so a table whose rows are updated or
 *   purged grows by every write it ever took.
 * - PGlite runs no checkpointer: its write-ahead log is only checkpointed at shutdown, so it grows by every write
 *   until then, and a crash replays all of it at the next start.
 * On PostgreSQL it does nothing and returns false. It holds PGlite, and so the service's event loop, for as long as it
 * takes, which grows with what was written since the last time: run it as often as keeps that short.
 * @example await maintainEmbedded(store, ["reservation", "strike"])
 */
export async function maintainEmbedded(store: Store, tables: readonly string[]): Promise<boolean> {
  if (store.kind !== "pglite") return false;
  for (const table of tables) {
    if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`invalid table name "${table}"`);
    await store.query(`VACUUM ${table}`);
  }
  await store.query("CHECKPOINT");
  return true;
}
