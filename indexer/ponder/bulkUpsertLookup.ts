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

/** Ponder 0.16.6's bulk upsert, `insert(table).values([...]).onConflictDoUpdate(...)`: one cache `get` per row. */
export const BULK_UPSERT = `                                if (Array.isArray(userValues)) {
                                    const ponderRows = [];
                                    for (const value of userValues) {
                                        checkTableAccess(table, "insert", value, chainId);
                                        const ponderRowUpdate = await indexingCache.get({`;

/** The same, with the rows' keys loaded at once first (on PostgreSQL too: the upsert reads each row there as well). */
export const BULK_UPSERT_LOADING_KEYS = `                                if (Array.isArray(userValues)) {
                                    const ponderRows = [];
                                    await indexingCache.loadKeys({ table, keys: userValues });
                                    for (const value of userValues) {
                                        checkTableAccess(table, "insert", value, chainId);
                                        const ponderRowUpdate = await indexingCache.get({`;

/**
 * Ponder's indexing cache (indexing-store/cache.js) with a `loadKeys` method ({@link CACHE_LOAD_KEYS}). Throws when it
 * is not the code the patch was written for.
 * @example addLoadKeys(readFileSync("node_modules/ponder/dist/esm/indexing-store/cache.js", "utf8"))
 */
export function addLoadKeys(source: string): string {
  return replaceOnce(source, {
    patch: "bulkUpsertLookup.ts",
    what: "indexing cache (createIndexingCache's set)",
    original: CACHE_SET,
    replacement: CACHE_LOAD_KEYS,
  });
}

/**
 * Ponder's indexing store (indexing-store/index.js) whose bulk upsert looks up all its rows' keys in one query before
 * updating or inserting each. The indexer updates the balances of a `BatchDebited` log's buyers in one bulk upsert;
 * the buyers are packed in the log's data, keys the cache's per-event predictions cannot derive, so each buyer it had
 * not seen lately cost a lookup query of its own. Now an upsert of N rows costs one query (per {@link KEYS_PER_QUERY});
 * the updates, the rows and the errors are Ponder's own. Needs {@link addLoadKeys}.
 * @example loadKeysBeforeBulkUpsert(readFileSync("node_modules/ponder/dist/esm/indexing-store/index.js", "utf8"))
 */
export function loadKeysBeforeBulkUpsert(source: string): string {
  return replaceOnce(source, {
    patch: "bulkUpsertLookup.ts",
    what: "bulk upsert (insert(table).values([...]).onConflictDoUpdate(...))",
    original: BULK_UPSERT,
    replacement: BULK_UPSERT_LOADING_KEYS,
  });
}
