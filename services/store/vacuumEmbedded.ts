import type { Store } from "./openStore.ts";

/**
 * Reclaims, on PGlite, the space of the rows deleted from `tables` and of the versions their updates left behind.
 * PGlite runs no autovacuum: without a VACUUM a table's files only grow, since deleted rows' space is never recorded
 * as free, and a table whose rows are updated or purged grows by every write it ever took. On PostgreSQL autovacuum
 * does this in the background, so there it does nothing (and returns false). A VACUUM of a table holds PGlite, and so
 * the service's event loop, for as long as it takes; run it as often as keeps that short.
 * @example await vacuumEmbedded(store, ["reservation", "result"])
 */
export async function vacuumEmbedded(store: Store, tables: readonly string[]): Promise<boolean> {
  if (store.kind !== "pglite") return false;
  for (const table of tables) {
    if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`invalid table name "${table}"`);
    await store.query(`VACUUM ${table}`);
  }
  return true;
}
