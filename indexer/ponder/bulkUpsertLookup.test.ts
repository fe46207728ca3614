import "./patches.ts";
import { readFileSync } from "node:fs";
import { eq } from "@ponder/client";
import { expect } from "chai";
import type { Hex } from "viem";
import {
  createProjectionsClient,
  projections,
  waitForIndexedBlock,
} from "../../services/projections/createProjectionsClient.ts";
import { freshClusterDump } from "../../services/store/pgliteCluster.ts";
import { prepareDebitLoad, sendDebitBatches, signDebits } from "../../testkit/chain/debitLoad.ts";
import type { LocalChain } from "../../testkit/chain/localChain.ts";
import { startLocalChain } from "../../testkit/chain/localChain.ts";
import type { Indexer } from "../../testkit/indexer/startIndexer.ts";
import { startIndexer } from "../../testkit/indexer/startIndexer.ts";
import {
  addLoadKeys,
  BULK_UPSERT_LOADING_KEYS,
  CACHE_LOAD_KEYS,
  KEYS_PER_QUERY,
  loadKeysBeforeBulkUpsert,
} from "./bulkUpsertLookup.ts";

const ponderModule = (path: string) => new URL(`../../node_modules/ponder/dist/esm/${path}`, import.meta.url);

/** A counter or histogram count of Ponder's Prometheus text, 0 when absent. */
function metric(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

type Row = { id: string; n: number };
type Upsert = { onConflictDoUpdate: (update: (row: Row) => Partial<Row>) => Promise<Row[]> };
type Store = { db: { insert: (table: unknown) => { values: (rows: Row[]) => Upsert } } };

/** The PGlite databases the tests opened, closed after each (an open one keeps the process alive). */
const opened: { close(): Promise<void> }[] = [];

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
  const client = new PGlite({ loadDataDir: await freshClusterDump() });
  opened.push(client);
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

describe("a bulk upsert looks up its rows' keys in one query (bulkUpsertLookup.ts)", () => {
  it("patches Ponder 0.16.6's indexing cache and store exactly once, and is idempotent", () => {
    const cache = addLoadKeys(readFileSync(ponderModule("indexing-store/cache.js"), "utf8"));
    expect(cache.split(CACHE_LOAD_KEYS)).to.have.length(2);
    expect(addLoadKeys(cache)).to.equal(cache);
    const store = loadKeysBeforeBulkUpsert(readFileSync(ponderModule("indexing-store/index.js"), "utf8"));
    expect(store.split(BULK_UPSERT_LOADING_KEYS)).to.have.length(2);
    expect(loadKeysBeforeBulkUpsert(store)).to.equal(store);
  });

  it("refuses code it was not written for, rather than running Ponder unpatched", () => {
    expect(() => addLoadKeys("export const createIndexingCache = () => ({});")).to.throw(/not the 0.16 code/);
    expect(() => loadKeysBeforeBulkUpsert("export const createIndexingStore = () => ({});")).to.throw(
      /not the 0.16 code/,
    );
  });

  describe("Ponder's indexing store, patched, on PGlite in realtime", () => {
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((db) => db.close()));
    });

    it(`upserts ${KEYS_PER_QUERY * 2} rows after two lookup queries, not one per row`, async () => {
      const { store, table, queries } = await pgliteStore();
      const rows = Array.from({ length: KEYS_PER_QUERY * 2 }, (_, n) => ({ id: `new-${n}`, n }));
      const result = await store.db
        .insert(table)
        .values(rows)
        .onConflictDoUpdate((r) => ({ n: r.n + 1 }));
      expect(queries()).to.equal(2);
      expect(result).to.have.length(KEYS_PER_QUERY * 2);
    });

    it("still updates the rows the table holds and inserts the others, each once", async () => {
      const { store, table, queries } = await pgliteStore();
      const upsert = (rows: Row[]) =>
        store.db
          .insert(table)
          .values(rows)
          .onConflictDoUpdate((r) => ({ n: r.n + 10 }));
      const first = await upsert([
        { id: "old", n: 1 },
        { id: "a", n: 1 },
      ]);
      expect(first.map(({ id, n }) => [id, n])).to.deep.equal([
        ["old", 10],
        ["a", 1],
      ]);
      expect(queries()).to.equal(1);
      const second = await upsert([
        { id: "a", n: 1 },
        { id: "old", n: 1 },
      ]);
      expect(second.map(({ id, n }) => [id, n])).to.deep.equal([
        ["a", 11],
        ["old", 20],
      ]);
      expect(queries()).to.equal(1);
    });
  });

  describe("when packed debits of many buyers arrive while the indexer is live (PGlite)", () => {
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

    it("looks up each BatchDebited log's buyers in one query, and keeps each buyer's balance", async () => {
      const load = await prepareDebitLoad(chain, { buyers: 24, resources: 1, debits: 96 });
      const client = createProjectionsClient(indexer.url);
      // The deposits' own upserts (one buyer each, from the event) are not what this counts.
      await waitForIndexedBlock(client, await chain.publicClient.getBlockNumber());
      const metricsBefore = await (await fetch(`${indexer.url}/metrics`)).text();
      await sendDebitBatches(load, await signDebits(load, 96), { batch: 16 });
      await waitForIndexedBlock(client, await chain.publicClient.getBlockNumber());
      for (const buyer of load.buyers) {
        const [row] = await client.db
          .select({ balance: projections.buyerBalance.balance })
          .from(projections.buyerBalance)
          .where(eq(projections.buyerBalance.buyer, buyer.address.toLowerCase() as Hex));
        expect(row?.balance).to.equal(await chain.contracts.escrow.read.balanceOf([buyer.address]));
      }
      const metrics = await (await fetch(`${indexer.url}/metrics`)).text();
      const moved = (series: string) => metric(metrics, series) - metric(metricsBefore, series);
      const queries = (method: string) =>
        `ponder_indexing_cache_query_duration_count{table="buyer_balance",method="${method}"}`;
      // 6 transactions of 16 debits over 24 buyers: 6 logs, so 6 lookup queries at most, none per buyer.
      expect(moved(queries("find"))).to.equal(0);
      expect(moved(queries("load"))).to.be.within(0, 6);
    });
  });
});
