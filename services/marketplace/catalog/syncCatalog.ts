import type { SQL } from "@ponder/client";
import { and, asc, eq, gt, gte, or } from "@ponder/client";
import type { Logger } from "pino";
import type { Hex } from "viem";
import type { ProjectionsClient } from "../../projections/createProjectionsClient.ts";
import { projections } from "../../projections/createProjectionsClient.ts";
import type { Sql } from "../../store/store.ts";
import { listingsChangedSince } from "../store/listings.ts";
import { probesChangedSince } from "../store/probes.ts";
import type { Catalog } from "./createCatalog.ts";

const PAGE = 5_000;

export type SyncCatalogParameters = {
  catalog: Catalog;
  indexer: ProjectionsClient;
  store: Sql;
  logger: Logger;
  intervalMs: number;
  resyncIntervalMs: number;
};

/** Where the catalog's incremental pull stands. */
export type SyncState = {
  /** The first full pull has completed. */
  initialized: boolean;
  /** The indexer's block when the last successful pull started. */
  indexedBlock: number | null;
  /** When the last pull succeeded (ms). */
  lastSyncAt: number;
  lastError: string | null;
};

/**
 * Keeps the catalog in step with the indexer's `resource` and `revenue` projections and the store's listings and
 * probes: every `intervalMs` it pulls rows changed since the last pull (keyset pages of 5,000 over
 * `updated_block`/`last_settled_block`, and over the store's `seq`), and every `resyncIntervalMs` it rebuilds the
 * chain facts from scratch, which also drops rows a reorg took back.
 * @example const sync = startCatalogSync({ catalog, indexer, store, logger, intervalMs: 100, resyncIntervalMs: 300_000 })
 */
export function startCatalogSync({
  catalog,
  indexer,
  store,
  logger,
  intervalMs,
  resyncIntervalMs,
}: SyncCatalogParameters) {
  const state: SyncState = { initialized: false, indexedBlock: null, lastSyncAt: 0, lastError: null };
  let resourceFrom = 0n;
  let revenueFrom = 0n;
  let listingSeq = 0n;
  let probeSeq = 0n;
  let lastResync = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  async function pullResources(full: boolean): Promise<void> {
    const r = projections.resource;
    let after: { block: bigint; id: Hex } | null = null;
    const from = full ? 0n : resourceFrom;
    for (;;) {
      const where: SQL | undefined = after
        ? or(gt(r.updatedBlock, after.block), and(eq(r.updatedBlock, after.block), gt(r.resourceId, after.id)))
        : gte(r.updatedBlock, from);
      const rows = await indexer.db
        .select()
        .from(r)
        .where(where)
        .orderBy(asc(r.updatedBlock), asc(r.resourceId))
        .limit(PAGE);
      for (const row of rows) {
        catalog.applyResource({
          resourceId: row.resourceId,
          creator: row.creator,
          agentId: row.agentId,
          slug: row.slug,
          category: row.category,
          base: row.base,
          perKB: row.perKB,
          max: row.max,
          bond: row.bond,
          active: row.active,
          cardHash: row.cardHash,
          strikesTotal: row.strikesTotal,
          registeredBlock: row.registeredBlock,
        });
      }
      const last: (typeof rows)[number] | undefined = rows.at(-1);
      if (last) {
        after = { block: last.updatedBlock, id: last.resourceId };
        if (last.updatedBlock > resourceFrom) resourceFrom = last.updatedBlock;
      }
      if (rows.length < PAGE) return;
    }
  }

  async function pullRevenue(full: boolean): Promise<void> {
    const v = projections.revenue;
    let after: { block: bigint; id: Hex } | null = null;
    const from = full ? 0n : revenueFrom;
    for (;;) {
      const where: SQL | undefined = after
        ? or(gt(v.lastSettledBlock, after.block), and(eq(v.lastSettledBlock, after.block), gt(v.resourceId, after.id)))
        : gte(v.lastSettledBlock, from);
      const rows = await indexer.db
        .select({ resourceId: v.resourceId, calls: v.calls, lastSettledBlock: v.lastSettledBlock })
        .from(v)
        .where(where)
        .orderBy(asc(v.lastSettledBlock), asc(v.resourceId))
        .limit(PAGE);
      for (const row of rows) catalog.applySettled(row.resourceId, row.calls);
      const last: (typeof rows)[number] | undefined = rows.at(-1);
      if (last) {
        after = { block: last.lastSettledBlock, id: last.resourceId };
        if (last.lastSettledBlock > revenueFrom) revenueFrom = last.lastSettledBlock;
      }
      if (rows.length < PAGE) return;
    }
  }

  async function pullStore(): Promise<void> {
    for (;;) {
      const rows = await listingsChangedSince(store, listingSeq, PAGE);
      for (const row of rows) {
        catalog.applyListing({
          resourceId: row.resourceId,
          resourceUrl: row.resourceUrl,
          cardText: row.cardText,
          sampleRequest: row.sampleRequest,
          status: row.status,
        });
        listingSeq = row.seq;
      }
      if (rows.length < PAGE) break;
    }
    for (;;) {
      const rows = await probesChangedSince(store, probeSeq, PAGE);
      for (const row of rows) {
        catalog.applyProbes(row.resourceId, row.history);
        probeSeq = row.seq;
      }
      if (rows.length < PAGE) break;
    }
  }

  /**
   * One pull; a full one rebuilds the chain facts. While the indexer's block stays the one the last pull started
   * at, its projections cannot have changed: only the store is pulled, and the indexer is asked one question, not
   * four (polling every 100 ms, an idle stack spent a sixth of a core on the marketplace's pulls and the
   * indexer's answers).
   */
  async function syncOnce(full = false): Promise<void> {
    const resync = full || Date.now() - lastResync >= resyncIntervalMs;
    if (!resync && state.initialized && state.lastError === null) {
      const block = await indexer.indexedBlock();
      if (block !== null && block === state.indexedBlock) {
        await pullStore();
        state.lastSyncAt = Date.now();
        return;
      }
    }
    const progress = await indexer.progress();
    if (!progress.ready) throw new Error("the indexer is not ready (backfill running or unreachable)");
    if (resync) catalog.beginResync();
    await pullStore();
    await pullResources(resync);
    await pullRevenue(resync);
    if (resync) {
      catalog.endResync();
      lastResync = Date.now();
    }
    state.indexedBlock = progress.block;
    state.lastSyncAt = Date.now();
    state.lastError = null;
    state.initialized = true;
  }

  const loop = () => {
    if (stopped) return;
    running = syncOnce()
      .catch((error: Error) => {
        const message = error.message.split("\n")[0] ?? "sync failed";
        if (state.lastError !== message) logger.warn({ err: message }, "catalog sync failed");
        state.lastError = message;
      })
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, intervalMs);
      });
  };
  loop();

  return {
    state,
    /** Pulls now (after any pull in flight); used by publish to see its own registration without waiting a tick. */
    async syncNow(): Promise<void> {
      await running;
      await syncOnce();
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running.catch(() => {});
    },
  };
}

/** The running catalog sync. */
export type CatalogSync = ReturnType<typeof startCatalogSync>;
