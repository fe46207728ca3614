import { replaceOnce } from "./replaceOnce.ts";

/** Keys per lookup query: far below PostgreSQL's 65,535 bind parameters, even for a composite primary key. */
export const KEYS_PER_QUERY = 500;

/** Ponder 0.16.6's indexing cache (indexing-store/cache.js), at its `set` method. */
export const CACHE_SET = `        set({ table, key, row: _row, isUpdate }) {`;

/**
 * `loadKeys` before it: the rows of `keys` that neither the cache nor its buffers hold, read in one query per
 * {@link KEYS_PER_QUERY} keys and cached (`null` when absent), as a miss caches its one row. Counted as `prefetch`
 * requests and one `load` query each, as the cache's block prefetch is; the `get` of each key that follows is a hit.
 */
export const CACHE_LOAD_KEYS = `        async loadKeys({ table, keys }) {
            const tableCache = cache.get(table);
            if (tableCache.isCacheComplete)
                return;
            const missing = new Map();
            for (const key of keys) {
                const ck = getCacheKey(table, key, primaryKeyCache);
                if (updateBuffer.get(table).has(ck) || insertBuffer.get(table).has(ck) || tableCache.cache.has(ck))
                    continue;
                missing.set(ck, key);
            }
            if (missing.size === 0)
                return;
            tableCache.diskReads += missing.size;
            common.metrics.ponder_indexing_cache_requests_total.inc({ table: getTableName(table), type: "prefetch" }, missing.size);
            const found = new Map();
            const pending = Array.from(missing.values());
            for (let i = 0; i < pending.length; i += ${KEYS_PER_QUERY}) {
                const endClock = startClock();
                const rows = await qb.wrap((db) => db
                    .select()
                    .from(table)
                    .where(or(...pending.slice(i, i + ${KEYS_PER_QUERY}).map((key) => getWhereCondition(table, key)))));
                for (const row of rows)
                    found.set(getCacheKey(table, row, primaryKeyCache), row);
                common.metrics.ponder_indexing_cache_query_duration.observe({ table: getTableName(table), method: "load" }, endClock());
            }
            for (const ck of missing.keys())
                tableCache.cache.set(ck, found.get(ck) ?? null);
        },
${CACHE_SET}`;

/** Ponder 0.16.6's plain `insert(table).values([...])` (indexing-store/index.js): one cache `get` per row. */
export const BULK_INSERT = `                                if (Array.isArray(ponderValues)) {
                                    const ponderRows = [];
                                    for (const value of ponderValues) {
                                        checkTableAccess(table, "insert", value, chainId);
                                        if (qb.$dialect === "pglite") {`;

/** The same, with the rows' keys loaded at once first on PGlite. */
export const BULK_INSERT_LOADING_KEYS = `                                if (Array.isArray(ponderValues)) {
                                    const ponderRows = [];
                                    if (qb.$dialect === "pglite")
                                        await indexingCache.loadKeys({ table, keys: ponderValues });
                                    for (const value of ponderValues) {
                                        checkTableAccess(table, "insert", value, chainId);
                                        if (qb.$dialect === "pglite") {`;

/**
 * Ponder's indexing cache (indexing-store/cache.js) with a `loadKeys` method ({@link CACHE_LOAD_KEYS}). Throws when it
 * is not the code the patch was written for.
 * @example addLoadKeys(readFileSync("node_modules/ponder/dist/esm/indexing-store/cache.js", "utf8"))
 */
export function addLoadKeys(source: string): string {
  return replaceOnce(source, {
    patch: "bulkInsertLookup.ts",
    what: "indexing cache (createIndexingCache's set)",
    original: CACHE_SET,
    replacement: CACHE_LOAD_KEYS,
  });
}

/**
 * Ponder's indexing store (indexing-store/index.js) whose plain bulk insert on PGlite looks up all its rows' keys in
 * one query before checking each for a conflict. On PGlite Ponder checks every inserted row's key against the table
 * (a conflict must throw in the handler: PGlite cannot recover one at flush, as PostgreSQL does). In realtime the
 * cache is incomplete and a key it has not seen (a packed `BatchDebited` log's `<log id>-<index>`, which its
 * per-event predictions cannot derive) cost one lookup query per row: 96 for 96 debits. Now a `values([...])` of N
 * rows costs one query; the conflict checks, the rows and the errors are Ponder's own. Needs {@link addLoadKeys}.
 * @example loadKeysBeforeBulkInsert(readFileSync("node_modules/ponder/dist/esm/indexing-store/index.js", "utf8"))
 */
export function loadKeysBeforeBulkInsert(source: string): string {
  return replaceOnce(source, {
    patch: "bulkInsertLookup.ts",
    what: "bulk insert (insert(table).values([...]))",
    original: BULK_INSERT,
    replacement: BULK_INSERT_LOADING_KEYS,
  });
}
