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

/** The real client with some of its parts replaced (to count or refuse what the sync asks of the indexer). */
function clientWith(real: ProjectionsClient, parts: Partial<ProjectionsClient>): ProjectionsClient {
  return {
    url: parts.url ?? real.url,
    db: parts.db ?? real.db,
    progress: parts.progress ?? real.progress,
    indexedBlock: parts.indexedBlock ?? real.indexedBlock,
    watchProjections: parts.watchProjections ?? real.watchProjections,
  };
}

const newCatalog = () =>
  createCatalog({ cardUrlOf: (id) => `http://127.0.0.1/${id}`, uptimeWindow: 10, healthWindow: 5 });

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
    const counted = clientWith(real, {
      db: new Proxy(real.db, {
        get(target, key, receiver) {
          if (key === "select") projectionReads++;
          return Reflect.get(target, key, receiver);
        },
      }),
    });
    const catalog = newCatalog();
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
      // Subscribing to the indexer's changes makes the next pull read the projections once (what changed before
      // the subscription opened is not pushed).
      await untilTrue("subscribed to the indexer's changes", () => sync.state.watching);
      /** Waits for the next pull of the store, however slowly a busy machine runs it. */
      const nextPull = async () => {
        const lastSync = sync.state.lastSyncAt;
        await untilTrue("the store is still pulled every interval", () => sync.state.lastSyncAt > lastSync);
      };
      // The read that subscribing brings comes with one of the next pulls.
      let reads = projectionReads;
      for (let pull = 0; pull < 20; pull++) {
        await nextPull();
        if (projectionReads > reads) break;
      }
      reads = projectionReads;
      for (let pull = 0; pull < 5; pull++) await nextPull();
      expect(projectionReads, "projection reads while no block was indexed").to.equal(reads);

      const resourceId = await chain.registerResource({ slug: "moved-on" });
      await untilTrue("the new resource in the catalog", () => catalog.get(resourceId)?.chain !== undefined);
      expect(projectionReads).to.be.above(reads);
      expect(sync.state.indexedBlock).to.be.a("number");
    } finally {
      await sync.stop();
    }
  });

  it("pulls a block's rows when the indexer pushes them, without asking for its block in between", async function () {
    const real = createProjectionsClient(indexer.url);
    await waitForIndexedBlock(real, Number(await chain.publicClient.getBlockNumber()));
    let blockAsked = 0;
    const counted = clientWith(real, {
      indexedBlock: () => {
        blockAsked++;
        return real.indexedBlock();
      },
    });
    const catalog = newCatalog();
    // Without the pushes, the block would next be asked for in a minute: the resource could not show up in time.
    const sync = startCatalogSync({ ...syncOptions(catalog, counted), indexerCheckMs: 60_000 });
    try {
      await untilTrue("subscribed to the indexer's changes", () => sync.state.initialized && sync.state.watching);
      // The pull right after subscribing asks once; the server-sent event stream opens on loopback meanwhile.
      await sleep(1_000);
      const asked = blockAsked;
      const lastSync = sync.state.lastSyncAt;
      await sleep(300);
      expect(blockAsked, "the indexer's block asked for while nothing was pushed").to.equal(asked);
      expect(sync.state.lastSyncAt, "the store is still pulled every interval").to.be.above(lastSync);

      const resourceId = await chain.registerResource({ slug: "pushed" });
      await untilTrue("the pushed resource in the catalog", () => catalog.get(resourceId)?.chain !== undefined);
      expect(blockAsked, "the pushed pull does not ask for the block first").to.equal(asked);
      expect(sync.state.watching).to.equal(true);
    } finally {
      await sync.stop();
    }
    expect(sync.state.watching, "stop ends the subscription").to.equal(false);
  });

  it("pulls only the projection a push names, and both when a missed push is checked for", async function () {
    const real = createProjectionsClient(indexer.url);
    await waitForIndexedBlock(real, Number(await chain.publicClient.getBlockNumber()));
    // The resource pull selects whole rows (`select()`), the revenue pull three columns (`select({ ... })`).
    const reads = { resource: 0, revenue: 0 };
    let push: ((moved: "resource" | "revenue") => void) | undefined;
    const counted = clientWith(real, {
      db: new Proxy(real.db, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver);
          if (key !== "select") return value;
          return (...fields: unknown[]) => {
            reads[fields.length === 0 ? "resource" : "revenue"]++;
            return (value as (...a: unknown[]) => unknown).apply(target, fields);
          };
        },
      }),
      watchProjections: (onChange) => {
        push = onChange;
        return { close() {} };
      },
    });
    const catalog = newCatalog();
    const check = 1_500;
    const sync = startCatalogSync({ ...syncOptions(catalog, counted), indexerCheckMs: check });
    try {
      await untilTrue("subscribed to the indexer's changes", () => sync.state.initialized && sync.state.watching);
      // The pull after subscribing reads both (what changed before is not pushed); then nothing is read unpushed.
      await untilTrue("the pull after subscribing", () => reads.resource >= 2 && reads.revenue >= 2);
      const settled = { ...reads };
      await sleep(200);
      expect(reads, "reads while nothing was pushed").to.deep.equal(settled);

      push?.("revenue");
      await untilTrue("the pushed revenue pulled", () => reads.revenue > settled.revenue);
      await sleep(100);
      expect(reads.resource, "a revenue push reads no resource rows").to.equal(settled.resource);

      push?.("resource");
      await untilTrue("the pushed resources pulled", () => reads.resource > settled.resource);
      const pushedOnly = { ...reads };
      await sleep(100);
      expect(reads.revenue, "a resource push reads no revenue rows").to.equal(pushedOnly.revenue);

      await untilTrue(
        "both pulled unpushed once the check is due",
        () => reads.resource > pushedOnly.resource && reads.revenue > pushedOnly.revenue,
      );
    } finally {
      await sync.stop();
    }
  });

  it("asks for the indexer's block every pull while it cannot subscribe, and subscribes again", async function () {
    const real = createProjectionsClient(indexer.url);
    let subscriptions = 0;
    const refused = clientWith(real, {
      watchProjections: (_onChange, onError) => {
        subscriptions++;
        setTimeout(() => onError(new Error("Live queries are not available")), 0);
        return { close() {} };
      },
    });
    const catalog = newCatalog();
    const sync = startCatalogSync({ ...syncOptions(catalog, refused), indexerCheckMs: 60_000 });
    try {
      await untilTrue("the first pull", () => sync.state.initialized);
      await untilTrue("the refusal seen", () => subscriptions >= 1 && !sync.state.watching);
      const resourceId = await chain.registerResource({ slug: "polled" });
      await untilTrue("the polled resource in the catalog", () => catalog.get(resourceId)?.chain !== undefined);
      await untilTrue("a second subscription a second later", () => subscriptions >= 2);
    } finally {
      await sync.stop();
    }
  });

  it("never takes a subscription that failed while it was being made", async function () {
    const real = createProjectionsClient(indexer.url);
    const refusedAtOnce = clientWith(real, {
      watchProjections: (_onChange, onError) => {
        onError(new Error("refused at once"));
        return { close() {} };
      },
    });
    const catalog = newCatalog();
    const sync = startCatalogSync({ ...syncOptions(catalog, refusedAtOnce), indexerCheckMs: 60_000 });
    try {
      await untilTrue("the first pull", () => sync.state.initialized);
      expect(sync.state.watching).to.equal(false);
      const resourceId = await chain.registerResource({ slug: "refused-at-once" });
      await untilTrue("the resource in the catalog", () => catalog.get(resourceId)?.chain !== undefined);
    } finally {
      await sync.stop();
    }
  });

  /** The sync as the tests run it: every 20 ms, no full resync. */
  function syncOptions(catalog: ReturnType<typeof createCatalog>, client: ProjectionsClient) {
    return {
      catalog,
      indexer: client,
      store,
      logger: pino({ level: "silent" }),
      intervalMs: 20,
      resyncIntervalMs: 300_000,
    };
  }
});
