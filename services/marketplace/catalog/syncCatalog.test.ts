import { expect } from "chai";
import pino from "pino";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { startLocalChain } from "../../../testkit/chain/localChain.ts";
import type { Indexer } from "../../../testkit/indexer/startIndexer.ts";
import { startIndexer } from "../../../testkit/indexer/startIndexer.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { until } from "../../../testkit/until.ts";
import type { ProjectionsClient } from "../../projections/createProjectionsClient.ts";
import { createProjectionsClient, waitForIndexedBlock } from "../../projections/createProjectionsClient.ts";
import { openStore } from "../../store/openStore.ts";
import type { Store } from "../../store/store.ts";
import { MIGRATIONS } from "../store/migrations.ts";
import { createCatalog } from "./createCatalog.ts";
import { startCatalogSync } from "./syncCatalog.ts";

/** Polls the synchronous `check` every 20 ms (the sync's own interval). */
const untilTrue = (what: string, check: () => boolean) => until(() => check() || undefined, 20_000, what, 20);

describe("catalog sync against the real indexer", function () {
  this.timeout(120_000);
  let chain: LocalChain;
  let indexer: Indexer;
  let store: Store;

  before(async function () {
    chain = await startLocalChain();
    indexer = await startIndexer(chain);
    store = await openStore({ dataDir: "memory://", schema: "marketplace", migrations: MIGRATIONS });
  });

  after(async function () {
    await store?.close();
    await indexer?.stop();
    await chain?.close();
  });

  it("reads no projection while the indexer's block stands still, and a new block's rows at once", async function () {
    const real = createProjectionsClient(indexer.url);
    // Ponder answers /ready at the end of its backfill and may then index the head block in realtime: start once it
    // has, so that the block stands still for as long as the test says.
    const head = Number(await chain.publicClient.getBlockNumber());
    await waitForIndexedBlock(real, head);
    // The real client against the real Ponder, with its projection reads counted.
    let projectionReads = 0;
    const counted: ProjectionsClient = {
      url: real.url,
      live: real.live,
      progress: real.progress,
      indexedBlock: real.indexedBlock,
      db: new Proxy(real.db, {
        get(target, key, receiver) {
          if (key === "select") projectionReads++;
          return Reflect.get(target, key, receiver);
        },
      }),
    };
    const catalog = createCatalog({ cardUrlOf: (id) => `http://127.0.0.1/${id}`, uptimeWindow: 10, healthWindow: 5 });
    const sync = startCatalogSync({
      catalog,
      indexer: counted,
      store,
      logger: pino({ level: "silent" }),
      intervalMs: 20,
      resyncIntervalMs: 300_000,
    });
    try {
      await untilTrue(
        "the first pull at the chain's head",
        () => sync.state.initialized && sync.state.indexedBlock === head,
      );
      const reads = projectionReads;
      const lastSync = sync.state.lastSyncAt;
      await sleep(400);
      expect(sync.state.lastSyncAt, "the store is still pulled every interval").to.be.above(lastSync);
      expect(projectionReads, "projection reads while no block was indexed").to.equal(reads);

      const resourceId = await chain.registerResource({ slug: "moved-on" });
      await untilTrue("the new resource in the catalog", () => catalog.get(resourceId)?.chain !== undefined);
      expect(projectionReads).to.be.above(reads);
      expect(sync.state.indexedBlock).to.be.a("number");
    } finally {
      await sync.stop();
    }
  });
});
