import { replaceOnce } from "./replaceOnce.ts";

/** Ponder's user query builders (one per PGlite instance) whose session holds the live-query table. */
const sessionsWithTable = new WeakSet<object>();

/**
 * Whether the PGlite session behind Ponder's user query builder `qb` already holds the live-query table (created in a
 * realtime block that completed, so it lasts as long as the session).
 * @example if (!hasLiveQueryTable(database.userQB)) await createIt()
 */
export function hasLiveQueryTable(qb: object): boolean {
  return sessionsWithTable.has(qb);
}

/**
 * Records that a realtime block, which creates the live-query table if missing, has completed on the session behind
 * `qb`.
 * @example markLiveQueryTable(database.userQB)
 */
export function markLiveQueryTable(qb: object): void {
  sessionsWithTable.add(qb);
}

/** Ponder 0.16.6's PGlite branch at the start of each realtime block (omnichain and multichain runtimes). */
export const CREATE_EVERY_BLOCK = `                    else {
                        await tx.wrap((tx) => tx.execute(\`CREATE TEMP TABLE IF NOT EXISTS \${getLiveQueryTempTableName()} (table_name TEXT PRIMARY KEY)\`), context);
                    }`;

/** The same statement, once per session. */
export const CREATE_ONCE = `                    else if (!hasLiveQueryTable(database.userQB)) {
                        await tx.wrap((tx) => tx.execute(\`CREATE TEMP TABLE IF NOT EXISTS \${getLiveQueryTempTableName()} (table_name TEXT PRIMARY KEY)\`), context);
                    }`;

/** Ponder 0.16.6's end of each realtime block on PGlite. */
export const TRUNCATE_EVERY_BLOCK = `                    if (database.userQB.$dialect === "pglite") {
                        await tx.wrap((tx) => tx.execute(\`TRUNCATE TABLE \${getLiveQueryTempTableName()}\`), context);
                    }
                }, undefined, context);
                event.blockCallback?.(true);`;

/** The same, only after a block with events (as Ponder's isolated runtime already does), then the table recorded. */
export const TRUNCATE_AFTER_EVENTS = `                    if (event.events.length > 0 &&
                        database.userQB.$dialect === "pglite") {
                        await tx.wrap((tx) => tx.execute(\`TRUNCATE TABLE \${getLiveQueryTempTableName()}\`), context);
                    }
                }, undefined, context);
                if (database.userQB.$dialect === "pglite")
                    markLiveQueryTable(database.userQB);
                event.blockCallback?.(true);`;

/**
 * Ponder's omnichain or multichain runtime (runtime/omnichain.js, runtime/multichain.js) without the two statements
 * it ran on PGlite for every realtime block, events or not: `CREATE TEMP TABLE IF NOT EXISTS live_query_tables` at
 * the start and `TRUNCATE` of it at the end. Row triggers on every table record in it which tables a block wrote;
 * the checkpoint's update notifies that list to the API, which drops its cached reads of those tables. On PGlite
 * Ponder's block "transaction" is a series of statements, each committed on its own, in one session that the table
 * outlives. Here it is created in the first block of a session only, and emptied only after a block with events: a
 * block without events writes no table, so the table is still empty (Ponder's isolated runtime already skips the
 * `TRUNCATE` for it). A `TRUNCATE` gives the table and its index new files each time (created, the old ones unlinked,
 * the catalog updated); an empty block is left with the checkpoint's update alone. PostgreSQL servers keep Ponder's
 * own path (a table per transaction, `ON COMMIT DROP`). Throws on other code.
 * @example const patched = createLiveQueryTableOnce(readFileSync(multichainJs, "utf8"))
 */
export function createLiveQueryTableOnce(source: string): string {
  const created = replaceOnce(source, {
    patch: "liveQueryTable.ts",
    what: "realtime live-query table creation",
    original: CREATE_EVERY_BLOCK,
    replacement: CREATE_ONCE,
    prefix: `import { hasLiveQueryTable, markLiveQueryTable } from ${JSON.stringify(import.meta.url)};\n`,
  });
  return replaceOnce(created, {
    patch: "liveQueryTable.ts",
    what: "realtime live-query table truncation",
    original: TRUNCATE_EVERY_BLOCK,
    replacement: TRUNCATE_AFTER_EVENTS,
  });
}
