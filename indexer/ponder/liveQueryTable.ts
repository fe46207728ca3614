import { replaceOnce } from "./replaceOnce.ts";

/** Ponder's user query builders (one per PGlite instance) whose session holds the live-query table. */
const sessionsWithTable = new WeakSet<object>();

/**
 * Whether the PGlite session behind Ponder's user query builder `qb` already holds the live-query table (created by a
 * committed realtime block, so it lasts as long as the session).
 * @example if (!hasLiveQueryTable(database.userQB)) await createIt()
 */
export function hasLiveQueryTable(qb: object): boolean {
  return sessionsWithTable.has(qb);
}

/**
 * Records that a realtime block's transaction, which creates the live-query table if missing, has committed on the
 * session behind `qb`.
 * @example markLiveQueryTable(database.userQB)
 */
export function markLiveQueryTable(qb: object): void {
  sessionsWithTable.add(qb);
}

/** Ponder 0.16.6's PGlite branch at the start of each realtime block's transaction (omnichain and multichain). */
export const CREATE_EVERY_BLOCK = `                    else {
                        await tx.wrap((tx) => tx.execute(\`CREATE TEMP TABLE IF NOT EXISTS \${getLiveQueryTempTableName()} (table_name TEXT PRIMARY KEY)\`), context);
                    }`;

/** Created once per session; its rows go at each commit, in place. */
export const CREATE_ONCE = `                    else if (!hasLiveQueryTable(database.userQB)) {
                        await tx.wrap((tx) => tx.execute(\`CREATE TEMP TABLE IF NOT EXISTS \${getLiveQueryTempTableName()} (table_name TEXT PRIMARY KEY) ON COMMIT DELETE ROWS\`), context);
                    }`;

/** Ponder 0.16.6's end of each realtime block's transaction on PGlite. */
export const TRUNCATE_EVERY_BLOCK = `                    if (database.userQB.$dialect === "pglite") {
                        await tx.wrap((tx) => tx.execute(\`TRUNCATE TABLE \${getLiveQueryTempTableName()}\`), context);
                    }
                }, undefined, context);
                event.blockCallback?.(true);`;

export const MARK_AFTER_COMMIT = `                }, undefined, context);
                if (database.userQB.$dialect === "pglite")
                    markLiveQueryTable(database.userQB);
                event.blockCallback?.(true);`;

/**
 * Ponder's omnichain or multichain runtime (runtime/omnichain.js, runtime/multichain.js) without the two statements
 * it ran on PGlite for every realtime block, events or not: a `CREATE TEMP TABLE IF NOT EXISTS live_query_tables`
 * at the start, and a `TRUNCATE` of it at the end. The table collects which tables a block changed, for the
 * notification that invalidates the API's cached queries; PGlite is one session, so the table outlives each block,
 * and a `TRUNCATE` gives it and its index new files every time (created, then the old ones unlinked, and the catalog
 * updated). Here it is created once per session (after the first committed block), `ON COMMIT DELETE ROWS`:
 * PostgreSQL empties it in place at the commit of each transaction that used it, after the notification has read
 * it, as the `TRUNCATE` did. PostgreSQL servers keep Ponder's own path (`ON COMMIT DROP`). Throws on other code.
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
    replacement: MARK_AFTER_COMMIT,
  });
}
