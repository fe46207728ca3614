import type { MarketplaceContext } from "../marketplaceContext.ts";

/** Whether the marketplace can answer reads truthfully, and why not. */
export type Readiness = { ready: boolean; reason?: string; indexedBlock?: number | null; head?: number };

/**
 * Ready when the store answers, the indexer has finished its backfill and trails the chain head by at most
 * `READY_MAX_LAG_BLOCKS`, and the catalog has pulled from it within the last five sync intervals (or two seconds).
 * @example const { ready } = await readiness(ctx)
 */
export async function readiness(ctx: MarketplaceContext): Promise<Readiness> {
  try {
    await ctx.store.query("SELECT 1");
    const sync = ctx.sync.state;
    if (!sync.initialized) return { ready: false, reason: sync.lastError ?? "the catalog has not loaded yet" };
    const stale = Date.now() - sync.lastSyncAt > Math.max(2_000, 5 * ctx.config.SYNC_INTERVAL_MS);
    if (stale) return { ready: false, reason: sync.lastError ?? "the catalog has not synced recently" };
    const [progress, head] = await Promise.all([ctx.indexer.progress(), ctx.chain.publicClient.getBlockNumber()]);
    if (!progress.ready || progress.block === null) return { ready: false, reason: "the indexer is not ready" };
    const lag = Number(head) - progress.block;
    if (lag > ctx.config.READY_MAX_LAG_BLOCKS)
      return {
        ready: false,
        reason: `the indexer trails the chain by ${lag} blocks`,
        indexedBlock: progress.block,
        head: Number(head),
      };
    return { ready: true, indexedBlock: progress.block, head: Number(head) };
  } catch (error) {
    return { ready: false, reason: (error as Error).message.split("\n")[0] };
  }
}
