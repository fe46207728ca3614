import type { Hex } from "viem";
import { keccak256, stringToBytes } from "viem";
import { bestFirst } from "./bestFirst.ts";
import { cardSearchTexts } from "./cardSearchTexts.ts";
import type { CatalogEntry, ChainResource, Listing } from "./catalogEntry.ts";
import { createListedOrder } from "./createListedOrder.ts";
import { createListingWaiters } from "./createListingWaiters.ts";
import { createTextIndex } from "./createTextIndex.ts";
import { indexRecordOf } from "./indexRecordOf.ts";
import { parseStoredCard } from "./parseStoredCard.ts";
import type { ResourcesQuery } from "./resourcesQuery.ts";
import type { ProbeHistory } from "./scores.ts";

export type { CatalogEntry, ChainResource, Listing } from "./catalogEntry.ts";

export type CreateCatalogParameters = {
  /** The card URL of a resource, under the marketplace's base URL. */
  cardUrlOf: (resourceId: Hex) => string;
  uptimeWindow: number;
  healthWindow: number;
  /** Told about a record that fails the index-record schema (it is not listed). */
  onInvalid?: ((resourceId: Hex, problem: string) => void) | undefined;
  /** Told about a stored card that is not JSON or fails the card schema (the resource is listed, but `q` never finds it). */
  onUnsearchable?: ((resourceId: Hex, problem: string) => void) | undefined;
};

/**
 * The in-memory index behind `GET /resources`: a resource is listed when the chain knows it (registered, bond
 * posted in the same transaction) and the marketplace published it. Each listed record is built and validated once
 * per change and kept as JSON, so a read is a scan over precomputed fields plus a string join. The words of each
 * stored card (validated when it changes) are kept in a BM25F text index, so a `q` read ranks the records it finds.
 * @example const catalog = createCatalog({ cardUrlOf, uptimeWindow: 100, healthWindow: 10 })
 */
export function createCatalog({
  cardUrlOf,
  uptimeWindow,
  healthWindow,
  onInvalid,
  onUnsearchable,
}: CreateCatalogParameters) {
  const entries = new Map<Hex, CatalogEntry>();
  const text = createTextIndex<number>();
  const order = createListedOrder();
  const waiters = createListingWaiters();
  let generation = 0;

  const entryOf = (resourceId: Hex): CatalogEntry => {
    const id = resourceId.toLowerCase() as Hex;
    let entry = entries.get(id);
    if (!entry) {
      entry = {
        resourceId: id,
        chain: undefined,
        listing: undefined,
        cardTextHash: undefined,
        settled: 0,
        settledGeneration: generation,
        history: [],
        record: undefined,
        json: undefined,
        listed: false,
        generation,
        pos: -1,
        slot: entries.size,
      };
      entries.set(id, entry);
      order.reserveSlot(entry.slot);
    }
    return entry;
  };

  const unlist = (entry: CatalogEntry) => {
    entry.record = undefined;
    entry.json = undefined;
    order.remove(entry);
  };

  const rebuild = (entry: CatalogEntry) => {
    const { chain, listing } = entry;
    if (!chain || !listing || listing.status === "removed") return unlist(entry);
    // The card the chain names (its cardHash) must be the one stored here: a card changed on chain (CardUpdated) is
    // not one this marketplace validated, and its card route would refuse it.
    if (entry.cardTextHash !== chain.cardHash.toLowerCase()) return unlist(entry);
    const built = indexRecordOf({
      resourceId: entry.resourceId,
      chain,
      settled: entry.settled,
      history: entry.history,
      cardUrl: cardUrlOf(entry.resourceId),
      uptimeWindow,
      healthWindow,
    });
    if (!built.ok) {
      onInvalid?.(entry.resourceId, built.problem);
      return unlist(entry);
    }
    entry.record = built.record;
    entry.json = JSON.stringify(built.record);
    if (order.add(entry)) waiters.notify(entry.resourceId);
  };

  let rankedPositions = new Int32Array(1024);
  let rankedScores = new Float64Array(1024);

  /**
   * The listed records whose card holds a term of `q.q` and that pass the filters: how many, and the positions of the
   * best `k`, best first.
   */
  const ranked = (q: ResourcesQuery, k: number): { total: number; best: Int32Array } => {
    const matches = order.columns.matcher(q, order.listed);
    if (!matches) return { total: 0, best: new Int32Array(0) };
    let count = 0;
    text.search(q.q!, (slot, score) => {
      const pos = order.positionOf(slot);
      if (pos < 0 || !matches(pos)) return;
      if (count === rankedPositions.length) {
        const positions = new Int32Array(count * 2);
        positions.set(rankedPositions);
        rankedPositions = positions;
        const scores = new Float64Array(count * 2);
        scores.set(rankedScores);
        rankedScores = scores;
      }
      rankedPositions[count] = pos;
      rankedScores[count] = score;
      count += 1;
    });
    return { total: count, best: bestFirst(rankedScores, rankedPositions, count, k) };
  };

  return {
    /** Applies a `resource` row of the indexer (a registration or any later change). */
    applyResource(row: ChainResource): void {
      const entry = entryOf(row.resourceId);
      const moved = entry.chain !== undefined && entry.chain.registeredBlock !== row.registeredBlock;
      if (moved) order.remove(entry);
      entry.chain = { ...row, resourceId: entry.resourceId };
      entry.generation = generation;
      rebuild(entry);
    },
    /** Applies the settled-call count of a resource (the indexer's `revenue.calls`). */
    applySettled(resourceId: Hex, calls: number): void {
      const entry = entryOf(resourceId);
      entry.settledGeneration = generation;
      if (entry.settled === calls) return;
      entry.settled = calls;
      rebuild(entry);
    },
    /** Applies the marketplace's listing of a resource (published, pending or removed). */
    applyListing(listing: Listing): void {
      const entry = entryOf(listing.resourceId);
      if (entry.listing?.cardText !== listing.cardText) {
        entry.cardTextHash = keccak256(stringToBytes(listing.cardText));
        const parsed = parseStoredCard(listing.cardText);
        if (parsed.ok) text.put(entry.slot, cardSearchTexts(parsed.card));
        else {
          text.remove(entry.slot);
          onUnsearchable?.(entry.resourceId, parsed.problem);
        }
      }
      entry.listing = { ...listing, resourceId: entry.resourceId };
      rebuild(entry);
    },
    /** Forgets a listing (a publish that failed before its registration). */
    dropListing(resourceId: Hex): void {
      const entry = entryOf(resourceId);
      entry.listing = undefined;
      entry.cardTextHash = undefined;
      text.remove(entry.slot);
      rebuild(entry);
    },
    /** Applies a resource's probe history (oldest first). */
    applyProbes(resourceId: Hex, history: ProbeHistory): void {
      const entry = entryOf(resourceId);
      entry.history = history;
      rebuild(entry);
    },
    /**
     * Starts a full rebuild: chain facts and settled counts not re-applied before `endResync` are dropped (a reorg
     * removed them: a resource whose only debits it took back has no revenue row left to apply).
     */
    beginResync(): void {
      generation += 1;
    },
    endResync(): void {
      for (const entry of entries.values()) {
        const stale = entry.chain !== undefined && entry.generation !== generation;
        const unsettled = entry.settled !== 0 && entry.settledGeneration !== generation;
        if (stale) entry.chain = undefined;
        if (unsettled) entry.settled = 0;
        if (stale || unsettled) rebuild(entry);
      }
    },
    get(resourceId: string): CatalogEntry | undefined {
      return entries.get(resourceId.toLowerCase() as Hex);
    },
    /** The listed entries, in registration order. */
    listed(): readonly CatalogEntry[] {
      return order.listed;
    },
    /** How many resources the catalog knows (listed or not). */
    get size(): number {
      return entries.size;
    },
    /**
     * One page of listed records matching `q`, as a JSON array, and how many match in all. Without `q.q` the records
     * come in registration order; with it, only records whose card holds one of its terms, best score first (ties in
     * registration order).
     * @example catalog.query({ minBond: 1n, limit: 10, offset: 0 }) // { total: 3, json: "[…]" }
     */
    query(q: ResourcesQuery): { total: number; json: string } {
      const offset = q.offset ?? 0;
      const end = offset + (q.limit ?? 1000);
      if (q.q !== undefined) {
        const { total, best } = ranked(q, end);
        const json: string[] = [];
        for (let i = offset; i < best.length; i++) json.push(order.listed[best[i]!]!.json!);
        return { total, json: `[${json.join(",")}]` };
      }
      const filtered =
        q.category !== undefined ||
        q.active !== undefined ||
        q.minBond !== undefined ||
        q.minBasePrice !== undefined ||
        q.maxBasePrice !== undefined ||
        q.minReputation !== undefined ||
        q.minUptime !== undefined;
      if (!filtered) {
        return {
          total: order.listed.length,
          json: `[${order.listed
            .slice(offset, end)
            .map((entry) => entry.json)
            .join(",")}]`,
        };
      }
      const json: string[] = [];
      let total = 0;
      const matches = order.columns.matcher(q, order.listed);
      for (let i = 0; matches && i < order.listed.length; i++) {
        if (!matches(i)) continue;
        if (total >= offset && total < end) json.push(order.listed[i]!.json!);
        total += 1;
      }
      return { total, json: `[${json.join(",")}]` };
    },
    /** Resolves true once `resourceId` is listed, or false after `timeoutMs`. */
    waitForListed(resourceId: Hex, timeoutMs: number): Promise<boolean> {
      const id = resourceId.toLowerCase() as Hex;
      if (entries.get(id)?.listed) return Promise.resolve(true);
      return waiters.wait(id, timeoutMs);
    },
  };
}

/** The marketplace's in-memory index. */
export type Catalog = ReturnType<typeof createCatalog>;
