import { createClient, max } from "@ponder/client";
import * as schema from "../../indexer/ponder.schema.ts";

/** The indexer's tables, as `@ponder/client` queries them. */
export { schema as projections };

/** How far the indexer has got on chain 5042002, and whether its historical backfill is complete. */
export type IndexerProgress = { ready: boolean; block: number | null };

/** A subscription to the indexer's changes (`watchProjections`); `close` ends it. */
export type ProjectionsWatch = { close(): void };

/** The projections `watchProjections` reports changes of. */
export type WatchedProjection = "resource" | "revenue";

/**
 * A reader of the indexer's chain-derived projections: SQL over HTTP (`@ponder/client` against Ponder's `/sql`),
 * typed by indexer/ponder.schema.ts, plus the indexer's progress (`/ready`, `/status`).
 * @example const indexer = createProjectionsClient("http://127.0.0.1:42069"); await indexer.db.select().from(projections.revenue)
 */
export function createProjectionsClient(indexerUrl: string, { timeoutMs = 5_000 }: { timeoutMs?: number } = {}) {
  const base = indexerUrl.replace(/\/+$/, "");
  const client = createClient(`${base}/sql`, { schema });
  const get = (path: string) => fetch(`${base}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
  const statusBlock = async (): Promise<number | null> => {
    const body = (await (await get("/status")).json()) as Record<string, { block?: { number?: number } }>;
    const block = Object.values(body)[0]?.block?.number;
    return typeof block === "number" ? block : null;
  };
  return {
    url: base,
    db: client.db,
    /** Whether the backfill is done and the last indexed block (null when the indexer cannot be reached). */
    async progress(): Promise<IndexerProgress> {
      try {
        const [ready, block] = await Promise.all([get("/ready"), statusBlock()]);
        return { ready: ready.status === 200, block };
      } catch {
        return { ready: false, block: null };
      }
    },
    /**
     * The last indexed block alone (`/status`; null when unknown). Ponder writes a block's checkpoint with or after
     * its rows, so while it stays the same no projection row changed.
     */
    async indexedBlock(): Promise<number | null> {
      return statusBlock().catch(() => null);
    },
    /**
     * Calls `onChange` with the projection each time the indexer indexes a block that moved the `resource` or
     * `revenue` projection (two Ponder live queries over `/sql/live`, pushed as server-sent events once the block is
     * written), and `onError`
     * once, with the subscription closed, when either fails: refused (Ponder answers 503 until its backfill is
     * done), dropped or unreadable. Changes made before the subscription opened are not pushed.
     */
    watchProjections(onChange: (moved: WatchedProjection) => void, onError: (error: Error) => void): ProjectionsWatch {
      let open = true;
      const subscriptions: { unsubscribe(): void }[] = [];
      const close = () => {
        open = false;
        for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
      };
      const failed = (error: Error) => {
        if (!open) return;
        close();
        onError(error);
      };
      const changed = (moved: WatchedProjection) => () => {
        if (open) onChange(moved);
      };
      const { resource, revenue } = schema;
      subscriptions.push(
        client.live(
          (db) => db.select({ block: max(resource.updatedBlock) }).from(resource),
          changed("resource"),
          failed,
        ),
        client.live(
          (db) => db.select({ block: max(revenue.lastSettledBlock) }).from(revenue),
          changed("revenue"),
          failed,
        ),
      );
      return { close };
    },
  };
}

/** A reader of the indexer's projections. */
export type ProjectionsClient = ReturnType<typeof createProjectionsClient>;

/**
 * Resolves once the indexer has indexed `blockNumber` (or rejects after `timeoutMs`).
 * @example await waitForIndexedBlock(indexer, receipt.blockNumber)
 */
export async function waitForIndexedBlock(
  indexer: ProjectionsClient,
  blockNumber: bigint | number,
  { timeoutMs = 30_000, intervalMs = 50 } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { block } = await indexer.progress();
    if (block !== null && block >= Number(blockNumber)) return;
    if (Date.now() > deadline)
      throw new Error(`the indexer did not reach block ${blockNumber} within ${timeoutMs} ms (at ${block})`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
