import type { SQL } from "@ponder/client";
import { and, asc, eq, gt, gte, or } from "@ponder/client";
import type { Logger } from "pino";
import type { Hex } from "viem";
import type {
  ProjectionsClient,
  ProjectionsWatch,
  WatchedProjection,
} from "../../projections/createProjectionsClient.ts";
import { projections } from "../../projections/createProjectionsClient.ts";
import type { Sql } from "../../store/store.ts";
import { listingsChangedSince } from "../store/listings.ts";
import { probesChangedSince } from "../store/probes.ts";
import type { Catalog } from "./createCatalog.ts";

const PAGE = 5_000;

/**
 * While the indexer pushes its changes, how often it is still asked where it stands and both projections pulled, in
 * case a push was missed.
 */
export const INDEXER_CHECK_WHILE_WATCHING_MS = 5_000;

/** How long after a failed subscription to the indexer's changes the sync subscribes again. */
const WATCH_RETRY_MS = 1_000;

export type SyncCatalogParameters = {
  catalog: Catalog;
  indexer: ProjectionsClient;
  store: Sql;
  logger: Logger;
  intervalMs: number;
  resyncIntervalMs: number;
  /** How often a checked pull runs while the indexer's pushes arrive (INDEXER_CHECK_WHILE_WATCHING_MS). */
  indexerCheckMs?: number;
};

const BOTH: ReadonlySet<WatchedProjection> = new Set(["resource", "revenue"]);
const NEITHER: ReadonlySet<WatchedProjection> = new Set();

/** Where the catalog's incremental pull stands. */
export type SyncState = {
  /** The first full pull has completed. */
  initialized: boolean;
  /** The indexer's block when the last successful pull started. */
  indexedBlock: number | null;
  /** When the last pull succeeded (ms). */
  lastSyncAt: number;
  lastError: string | null;
  /** Whether the sync is subscribed to the indexer's changes (otherwise it asks for the indexer's block every pull). */
  watching: boolean;
};

/**
 * Keeps the catalog in step with the indexer's `resource` and `revenue` projections and the store's listings and
 * probes: every `intervalMs` it pulls the store's rows changed since the last pull (keyset pages of 5,000 over its
 * `seq`), and the indexer's rows changed since the last pull (over `updated_block`/`last_settled_block`) when the
 * indexer's block has moved; every `resyncIntervalMs` it rebuilds the chain facts from scratch, which also drops rows
 * a reorg took back. Once the indexer is ready the sync subscribes to its changes (`watchProjections`): then a
 * projection is pulled only after the indexer pushed a change of it, and the indexer's block is asked for only every
 * `indexerCheckMs` (then both projections are pulled, in case a push was missed); without a subscription (refused,
 * dropped), every pull asks for it, and the sync subscribes again a second later.
 * @example const sync = startCatalogSync({ catalog, indexer, store, logger, intervalMs: 100, resyncIntervalMs: 300_000 })
 */
export function startCatalogSync({
  catalog,
  indexer,
  store,
  logger,
  intervalMs,
  resyncIntervalMs,
  indexerCheckMs = INDEXER_CHECK_WHILE_WATCHING_MS,
}: SyncCatalogParameters) {
  const state: SyncState = { initialized: false, indexedBlock: null, lastSyncAt: 0, lastError: null, watching: false };
  let watch: ProjectionsWatch | null = null;
  let watchAgainAt = 0;
  /** The projections the indexer pushed a change of (or that may have changed unseen) since they were last pulled. */
  let pushed = new Set<WatchedProjection>(BOTH);
  let indexerCheckedAt = 0;
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
      for (const row of rows) catalog.applySettled(row.resourceId, Number(row.calls));
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

  /** Subscribes to the indexer's changes, unless subscribed or a failed subscription is too recent. */
  function watchIndexer(): void {
    if (watch || stopped || Date.now() < watchAgainAt) return;
    let subscription: ProjectionsWatch | undefined;
    let ended = false;
    subscription = indexer.watchProjections(
      (moved) => {
        pushed.add(moved);
      },
      (error) => {
        ended = true;
        if (watch === subscription) watch = null;
        state.watching = watch !== null;
        pushed = new Set(BOTH);
        watchAgainAt = Date.now() + WATCH_RETRY_MS;
        logger.debug({ err: error.message }, "the indexer's change subscription ended; asking for its block each pull");
      },
    );
    if (!ended) watch = subscription;
    state.watching = watch !== null;
    // What changed before the subscription opened is not pushed: the next pull reads both.
    pushed = new Set(BOTH);
  }

  /**
   * One pull; a full one rebuilds the chain facts. While the indexer pushes its changes, a projection is pulled after
   * a push of it (a block of debits moves `revenue` alone), and the indexer is asked where it stands only every
   * `indexerCheckMs` (or when `checked`), with both projections pulled then: Ponder serves live queries only once
   * ready, and a push means rows moved, so the changed rows are pulled without asking where the indexer stands (it
   * may write a block's checkpoint after its rows); a push during this pull makes the next one pull again. Without a
   * subscription, while the indexer's block stays the one the last pull started at, its projections cannot have
   * changed: only the store is pulled, and the indexer is asked one question, not four. (Polling every 100 ms, an idle
   * stack spent a sixth of a core on the marketplace's pulls and the indexer's answers; asking for the indexer's block
   * every second while subscribed, with the test network's block every 500 ms, still pulled both projections each
   * second.)
   */
  async function syncOnce(full = false, checked = false): Promise<void> {
    const resync = full || Date.now() - lastResync >= resyncIntervalMs;
    if (!resync && !checked && state.initialized && state.lastError === null) {
      if (watch && Date.now() - indexerCheckedAt < indexerCheckMs) {
        const moved = pushed;
        pushed = new Set();
        return pullRows(moved);
      }
      if (!watch) {
        const block = await indexer.indexedBlock();
        if (block !== null && block === state.indexedBlock) return pullRows(NEITHER);
      }
    }
    // A checked pull: where the indexer stands, then both projections' changes (a push meanwhile pulls again).
    indexerCheckedAt = Date.now();
    pushed = new Set();
    const progress = await indexer.progress();
    if (!progress.ready) throw new Error("the indexer is not ready (backfill running or unreachable)");
    if (resync) catalog.beginResync();
    await pullRows(BOTH, resync);
    if (resync) {
      catalog.endResync();
      lastResync = Date.now();
    }
    state.indexedBlock = progress.block;
    state.lastError = null;
    state.initialized = true;
  }

  /** Pulls the store's changes, and those of the indexer's projections in `chain` (all of their rows when `full`). */
  async function pullRows(chain: ReadonlySet<WatchedProjection>, full = false): Promise<void> {
    await pullStore();
    if (chain.has("resource")) await pullResources(full);
    if (chain.has("revenue")) await pullRevenue(full);
    state.lastSyncAt = Date.now();
  }

  const loop = () => {
    if (stopped) return;
    running = syncOnce()
      .then(() => watchIndexer())
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
    /**
     * Pulls now (after any pull in flight), asking where the indexer stands and reading both projections' changes
     * whatever was pushed: afterwards `state.indexedBlock` is a block the catalog has every change of.
     */
    async syncNow(): Promise<void> {
      await running;
      await syncOnce(false, true);
    },
    async stop(): Promise<void> {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running.catch(() => {});
      watch?.close();
      watch = null;
      state.watching = false;
    },
  };
}

/** The running catalog sync. */
export type CatalogSync = ReturnType<typeof startCatalogSync>;
