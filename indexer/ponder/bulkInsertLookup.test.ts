import "./patches.ts";
import { readFileSync } from "node:fs";
import { count } from "@ponder/client";
import { expect } from "chai";
import {
  createProjectionsClient,
  projections,
  waitForIndexedBlock,
} from "../../services/projections/createProjectionsClient.ts";
import { prepareDebitLoad, sendDebitBatches, signDebits } from "../../testkit/chain/debitLoad.ts";
import type { LocalChain } from "../../testkit/chain/localChain.ts";
import { startLocalChain } from "../../testkit/chain/localChain.ts";
import type { Indexer } from "../../testkit/indexer/startIndexer.ts";
import { startIndexer } from "../../testkit/indexer/startIndexer.ts";
import {
  addLoadKeys,
  BULK_INSERT_LOADING_KEYS,
  CACHE_LOAD_KEYS,
  KEYS_PER_QUERY,
  loadKeysBeforeBulkInsert,
} from "./bulkInsertLookup.ts";

const ponderModule = (path: string) => new URL(`../../node_modules/ponder/dist/esm/${path}`, import.meta.url);

/** A counter or histogram count of Ponder's Prometheus text, 0 when absent. */
function metric(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

type Row = { id: string; n: number };
type Store = { db: { insert: (table: unknown) => { values: (rows: Row[]) => Promise<unknown> } } };

/**
 * Ponder's own indexing cache and store, loaded through patches.ts's hook, in realtime mode (cache incomplete) on a
 * PGlite table `row`, with the number of queries they sent to it.
 */
async function pgliteStore(): Promise<{ store: Store; table: unknown; queries: () => number }> {
  // Ponder's PGlite: the project's, through package.json's overrides (pgliteDataDir.test.ts checks).
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { onchainTable } = await import("ponder");
  const { createIndexingCache } = await import(ponderModule("indexing-store/cache.js").href);
  const { createIndexingStore } = await import(ponderModule("indexing-store/index.js").href);
  const client = new PGlite();
  await client.exec(
    `CREATE TABLE "row" (id text PRIMARY KEY, n integer NOT NULL); INSERT INTO "row" VALUES ('old', 0)`,
  );
  const db = drizzle({ client });
  let queries = 0;
  const qb = {
    $dialect: "pglite",
    $client: client,
    wrap: (run: (d: typeof db) => Promise<unknown>) => {
      queries++;
      return run(db);
    },
  };
  const quiet = { inc: () => {}, observe: () => {} };
  const common = { metrics: new Proxy({}, { get: () => quiet }), logger: { child: () => ({}), debug: () => {} } };
  const table = onchainTable("row", (t) => ({ id: t.text().primaryKey(), n: t.integer().notNull() }));
  const schemaBuild = { schema: { row: table } };
  const indexingCache = createIndexingCache({ common, schemaBuild, crashRecoveryCheckpoint: [], eventCount: {} });
  indexingCache.qb = qb;
  const store = createIndexingStore({
    common,
    schemaBuild,
    indexingCache,
    indexingErrorHandler: { setRetryableError: () => {} },
  });
  store.qb = qb;
  return { store, table, queries: () => queries };
}

describe("a bulk insert on PGlite looks up its rows' keys in one query (bulkInsertLookup.ts)", () => {
  it("patches Ponder 0.16.6's indexing cache and store exactly once, and is idempotent", () => {
    const cache = addLoadKeys(readFileSync(ponderModule("indexing-store/cache.js"), "utf8"));
    expect(cache.split(CACHE_LOAD_KEYS)).to.have.length(2);
    expect(addLoadKeys(cache)).to.equal(cache);
    const store = loadKeysBeforeBulkInsert(readFileSync(ponderModule("indexing-store/index.js"), "utf8"));
    expect(store.split(BULK_INSERT_LOADING_KEYS)).to.have.length(2);
    expect(loadKeysBeforeBulkInsert(store)).to.equal(store);
  });

  it("refuses code it was not written for, rather than running Ponder unpatched", () => {
    expect(() => addLoadKeys("export const createIndexingCache = () => ({});")).to.throw(/not the 0.16 code/);
    expect(() => loadKeysBeforeBulkInsert("export const createIndexingStore = () => ({});")).to.throw(
      /not the 0.16 code/,
    );
  });

  describe("Ponder's indexing store, patched, on PGlite in realtime", () => {
    it(`inserts ${KEYS_PER_QUERY * 2} new rows after two lookup queries, not one per row`, async () => {
      const { store, table, queries } = await pgliteStore();
      const rows = Array.from({ length: KEYS_PER_QUERY * 2 }, (_, n) => ({ id: `new-${n}`, n }));
      const result = await store.db.insert(table).values(rows);
      expect(queries()).to.equal(2);
      expect(result).to.have.length(KEYS_PER_QUERY * 2);
    });

    it("still refuses a row whose key the table holds, or that the same insert repeats", async () => {
      const { store, table } = await pgliteStore();
      const refused = (rows: Row[]) =>
        store.db
          .insert(table)
          .values(rows)
          .then(
            () => "inserted",
            (error: Error) => error.name,
          );
      expect(
        await refused([
          { id: "a", n: 1 },
          { id: "old", n: 1 },
        ]),
      ).to.equal("UniqueConstraintError");
      expect(
        await refused([
          { id: "b", n: 1 },
          { id: "b", n: 2 },
        ]),
      ).to.equal("UniqueConstraintError");
      expect(await refused([{ id: "c", n: 1 }])).to.equal("inserted");
    });
  });

  describe("when packed debits arrive while the indexer is live (PGlite)", () => {
    let chain: LocalChain;
    let indexer: Indexer;

    before(async () => {
      chain = await startLocalChain();
      indexer = await startIndexer(chain);
    });

    after(async () => {
      await indexer?.stop();
      await chain?.close();
    });

    it("looks up each BatchDebited log's debit rows in one query, and still indexes one row per debit", async () => {
      const load = await prepareDebitLoad(chain, { buyers: 4, resources: 1, debits: 96 });
      await sendDebitBatches(load, await signDebits(load, 96), { batch: 16 });
      const client = createProjectionsClient(indexer.url);
      await waitForIndexedBlock(client, await chain.publicClient.getBlockNumber());
      const rows = await client.db.select({ n: count() }).from(projections.debit);
      expect(Number(rows[0]?.n)).to.equal(96);
      const metrics = await (await fetch(`${indexer.url}/metrics`)).text();
      const requests = (type: string) => `ponder_indexing_cache_requests_total{table="debit",type="${type}"}`;
      const queries = (method: string) =>
        `ponder_indexing_cache_query_duration_count{table="debit",method="${method}"}`;
      expect(metric(metrics, requests("miss"))).to.equal(0);
      expect(metric(metrics, queries("find"))).to.equal(0);
      // 6 transactions of 16 debits for one resource: 6 logs, so 6 lookup queries at most.
      expect(metric(metrics, queries("load"))).to.be.within(1, 6);
      expect(metric(metrics, requests("hit"))).to.be.at.least(96);
    });
  });
});
