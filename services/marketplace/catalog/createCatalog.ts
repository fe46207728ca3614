import type { Hex } from "viem";
import { getAddress } from "viem";
import { z } from "zod";
import { cardSchema } from "../../protocol/schemas/card.ts";
import type { IndexRecord } from "../../protocol/schemas/indexRecord.ts";
import { indexRecordSchema } from "../../protocol/schemas/indexRecord.ts";
import { bestFirst } from "./bestFirst.ts";
import { cardSearchTexts } from "./cardSearchTexts.ts";
import { createTextIndex } from "./createTextIndex.ts";
import type { ResourcesQuery } from "./resourcesQuery.ts";
import type { ProbeHistory } from "./scores.ts";
import { healthOf, reputationOf, uptimeOf } from "./scores.ts";

/** What the chain (through the indexer's `resource` projection) says about a resource. */
export type ChainResource = {
  resourceId: Hex;
  creator: Hex;
  agentId: bigint;
  slug: string;
  category: string;
  base: bigint;
  perKB: bigint;
  max: bigint;
  bond: bigint;
  active: boolean;
  cardHash: Hex;
  strikesTotal: number;
  registeredBlock: bigint;
};

/** The marketplace's own record of a resource it published (store table `listing`). */
export type Listing = {
  resourceId: Hex;
  resourceUrl: string;
  /** The stored card (`JSON.stringify` of the finalized card); its words are what `q` searches. */
  cardText: string;
  sampleRequest: unknown;
  status: "pending" | "published" | "removed";
};

/** One resource as the catalog holds it: chain facts, the listing, settled calls, probes and the built record. */
export type CatalogEntry = {
  readonly resourceId: Hex;
  chain: ChainResource | undefined;
  listing: Listing | undefined;
  settled: number;
  history: ProbeHistory;
  record: IndexRecord | undefined;
  json: string | undefined;
  listed: boolean;
  generation: number;
  /** Index in the listed order (and in the filter columns) while listed. */
  pos: number;
  /** The entry's number for its whole life (the text index's key). */
  readonly slot: number;
};

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

function before(a: CatalogEntry, b: CatalogEntry): boolean {
  const ab = a.chain!.registeredBlock;
  const bb = b.chain!.registeredBlock;
  return ab < bb || (ab === bb && a.resourceId < b.resourceId);
}

/** Why a stored card cannot be searched, or its validated card. */
function parseCard(text: string) {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false as const, problem: "the stored card is not JSON" };
  }
  const parsed = cardSchema.safeParse(json);
  if (!parsed.success)
    return { ok: false as const, problem: `the stored card fails validation: ${z.prettifyError(parsed.error)}` };
  return { ok: true as const, card: parsed.data };
}

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
  /**
   * The listed position of each entry by slot (-1 while not listed), so ranking the text index's hits reads one typed
   * array rather than 100k entry objects scattered over the heap.
   */
  let positionOfSlot = new Int32Array(1024).fill(-1);
  const listed: CatalogEntry[] = [];
  const waiters = new Map<Hex, (() => void)[]>();
  let generation = 0;

  const entryOf = (resourceId: Hex): CatalogEntry => {
    const id = resourceId.toLowerCase() as Hex;
    let entry = entries.get(id);
    if (!entry) {
      entry = {
        resourceId: id,
        chain: undefined,
        listing: undefined,
        settled: 0,
        history: [],
        record: undefined,
        json: undefined,
        listed: false,
        generation,
        pos: -1,
        slot: entries.size,
      };
      entries.set(id, entry);
      if (entry.slot === positionOfSlot.length) {
        const grown = new Int32Array(entry.slot * 2).fill(-1);
        grown.set(positionOfSlot);
        positionOfSlot = grown;
      }
    }
    return entry;
  };

  const columns = createFilterColumns();

  const place = (entry: CatalogEntry, pos: number) => {
    entry.pos = pos;
    positionOfSlot[entry.slot] = pos;
  };

  const unlist = (entry: CatalogEntry) => {
    if (!entry.listed) return;
    entry.listed = false;
    const at = entry.pos;
    listed.splice(at, 1);
    columns.remove(at, listed.length);
    for (let i = at; i < listed.length; i++) place(listed[i]!, i);
    entry.pos = -1;
    positionOfSlot[entry.slot] = -1;
  };

  const list = (entry: CatalogEntry) => {
    if (entry.listed) {
      columns.write(entry.pos, entry);
      return;
    }
    entry.listed = true;
    let low = 0;
    let high = listed.length;
    if (high > 0 && before(listed[high - 1]!, entry)) low = high;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (before(listed[mid]!, entry)) low = mid + 1;
      else high = mid;
    }
    listed.splice(low, 0, entry);
    columns.insert(low, listed.length - 1);
    for (let i = low; i < listed.length; i++) place(listed[i]!, i);
    columns.write(low, entry);
    const resolve = waiters.get(entry.resourceId);
    if (resolve) {
      waiters.delete(entry.resourceId);
      for (const done of resolve) done();
    }
  };

  const rebuild = (entry: CatalogEntry) => {
    const { chain, listing } = entry;
    if (!chain || !listing || listing.status === "removed") {
      entry.record = undefined;
      entry.json = undefined;
      unlist(entry);
      return;
    }
    const record = {
      resourceId: entry.resourceId,
      creator: getAddress(chain.creator),
      agentId: chain.agentId.toString(),
      slug: chain.slug,
      category: chain.category,
      pricing: {
        model: "metered" as const,
        base: chain.base.toString(),
        perKB: chain.perKB.toString(),
        max: chain.max.toString(),
      },
      reputation: reputationOf(entry.settled, chain.strikesTotal),
      uptime: uptimeOf(entry.history, uptimeWindow),
      health: healthOf(entry.history, healthWindow),
      bond: chain.bond.toString(),
      cardUrl: cardUrlOf(entry.resourceId),
      active: chain.active,
    };
    const checked = indexRecordSchema.safeParse(record);
    if (!checked.success) {
      onInvalid?.(
        entry.resourceId,
        checked.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "),
      );
      entry.record = undefined;
      entry.json = undefined;
      unlist(entry);
      return;
    }
    entry.record = record;
    entry.json = JSON.stringify(record);
    list(entry);
  };

  let rankedPositions = new Int32Array(1024);
  let rankedScores = new Float64Array(1024);

  /**
   * The listed records whose card holds a term of `q.q` and that pass the filters: how many, and the positions of the
   * best `k`, best first.
   */
  const ranked = (q: ResourcesQuery, k: number): { total: number; best: Int32Array } => {
    const matches = columns.matcher(q, listed);
    if (!matches) return { total: 0, best: new Int32Array(0) };
    let count = 0;
    text.search(q.q!, (slot, score) => {
      const pos = positionOfSlot[slot]!;
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
      if (moved) unlist(entry);
      entry.chain = { ...row, resourceId: entry.resourceId };
      entry.generation = generation;
      rebuild(entry);
    },
    /** Applies the settled-call count of a resource (the indexer's `revenue.calls`). */
    applySettled(resourceId: Hex, calls: number): void {
      const entry = entryOf(resourceId);
      if (entry.settled === calls) return;
      entry.settled = calls;
      rebuild(entry);
    },
    /** Applies the marketplace's listing of a resource (published, pending or removed). */
    applyListing(listing: Listing): void {
      const entry = entryOf(listing.resourceId);
      if (entry.listing?.cardText !== listing.cardText) {
        const parsed = parseCard(listing.cardText);
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
      text.remove(entry.slot);
      rebuild(entry);
    },
    /** Applies a resource's probe history (oldest first). */
    applyProbes(resourceId: Hex, history: ProbeHistory): void {
      const entry = entryOf(resourceId);
      entry.history = history;
      rebuild(entry);
    },
    /** Starts a full rebuild: chain facts not re-applied before `endResync` are dropped (a reorg removed them). */
    beginResync(): void {
      generation += 1;
    },
    endResync(): void {
      for (const entry of entries.values()) {
        if (entry.chain && entry.generation !== generation) {
          entry.chain = undefined;
          rebuild(entry);
        }
      }
    },
    get(resourceId: string): CatalogEntry | undefined {
      return entries.get(resourceId.toLowerCase() as Hex);
    },
    /** The listed entries, in registration order. */
    listed(): readonly CatalogEntry[] {
      return listed;
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
        for (let i = offset; i < best.length; i++) json.push(listed[best[i]!]!.json!);
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
          total: listed.length,
          json: `[${listed
            .slice(offset, end)
            .map((entry) => entry.json)
            .join(",")}]`,
        };
      }
      const json: string[] = [];
      let total = 0;
      const matches = columns.matcher(q, listed);
      for (let i = 0; matches && i < listed.length; i++) {
        if (!matches(i)) continue;
        if (total >= offset && total < end) json.push(listed[i]!.json!);
        total += 1;
      }
      return { total, json: `[${json.join(",")}]` };
    },
    /** Resolves true once `resourceId` is listed, or false after `timeoutMs`. */
    waitForListed(resourceId: Hex, timeoutMs: number): Promise<boolean> {
      const id = resourceId.toLowerCase() as Hex;
      if (entries.get(id)?.listed) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          const list = waiters.get(id)?.filter((fn) => fn !== done);
          if (list?.length) waiters.set(id, list);
          else waiters.delete(id);
          resolve(false);
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          resolve(true);
        };
        waiters.set(id, [...(waiters.get(id) ?? []), done]);
      });
    },
  };
}

/** The marketplace's in-memory index. */
export type Catalog = ReturnType<typeof createCatalog>;

/**
 * The filter fields of the listed records as typed arrays in listed order, so a filtered read is a tight scan over
 * contiguous memory rather than a walk over objects. Base units are kept as float64 for the scan; when a float ties
 * with the bound (possible above 2^53), the exact BigInt decides, so comparisons stay exact.
 */
function createFilterColumns() {
  const categories = new Map<string, number>();
  let capacity = 1024;
  let category = new Int32Array(capacity);
  let active = new Uint8Array(capacity);
  let bond = new Float64Array(capacity);
  let base = new Float64Array(capacity);
  let reputation = new Float64Array(capacity);
  let uptime = new Float64Array(capacity);

  const grow = (needed: number) => {
    if (needed <= capacity) return;
    while (capacity < needed) capacity *= 2;
    const next = <T extends Int32Array | Uint8Array | Float64Array>(old: T, make: (n: number) => T): T => {
      const array = make(capacity);
      array.set(old);
      return array;
    };
    category = next(category, (n) => new Int32Array(n));
    active = next(active, (n) => new Uint8Array(n));
    bond = next(bond, (n) => new Float64Array(n));
    base = next(base, (n) => new Float64Array(n));
    reputation = next(reputation, (n) => new Float64Array(n));
    uptime = next(uptime, (n) => new Float64Array(n));
  };
  const categoryId = (name: string) => {
    let id = categories.get(name);
    if (id === undefined) {
      id = categories.size;
      categories.set(name, id);
    }
    return id;
  };
  const all = () => [category, active, bond, base, reputation, uptime] as const;

  return {
    /** Opens a slot at `at` for a list that had `length` records. */
    insert(at: number, length: number): void {
      grow(length + 1);
      if (at < length) for (const column of all()) column.copyWithin(at + 1, at, length);
    },
    /** Closes the slot at `at`; `length` records remain. */
    remove(at: number, length: number): void {
      for (const column of all()) column.copyWithin(at, at + 1, length + 1);
    },
    write(at: number, entry: CatalogEntry): void {
      const record = entry.record!;
      const chain = entry.chain!;
      category[at] = categoryId(record.category);
      active[at] = record.active ? 1 : 0;
      bond[at] = Number(chain.bond);
      base[at] = Number(chain.base);
      reputation[at] = record.reputation;
      uptime[at] = record.uptime;
    },
    /**
     * A test of whether the listed record at a position passes the filters of `q`, or undefined when none can (an
     * unknown category).
     */
    matcher(q: ResourcesQuery, listed: readonly CatalogEntry[]): ((i: number) => boolean) | undefined {
      const wantCategory = q.category === undefined ? -1 : categories.get(q.category);
      if (wantCategory === undefined) return undefined;
      const wantActive = q.active === undefined ? -1 : q.active ? 1 : 0;
      const minBond = q.minBond === undefined ? -Infinity : Number(q.minBond);
      const minBase = q.minBasePrice === undefined ? -Infinity : Number(q.minBasePrice);
      const maxBase = q.maxBasePrice === undefined ? Infinity : Number(q.maxBasePrice);
      const minReputation = q.minReputation ?? -Infinity;
      const minUptime = q.minUptime ?? -Infinity;
      return (i) => {
        if (wantCategory >= 0 && category[i] !== wantCategory) return false;
        if (wantActive >= 0 && active[i] !== wantActive) return false;
        if (reputation[i]! < minReputation || uptime[i]! < minUptime) return false;
        const b = bond[i]!;
        if (b < minBond || (b === minBond && listed[i]!.chain!.bond < q.minBond!)) return false;
        const p = base[i]!;
        if (p < minBase || (p === minBase && listed[i]!.chain!.base < q.minBasePrice!)) return false;
        if (p > maxBase || (p === maxBase && listed[i]!.chain!.base > q.maxBasePrice!)) return false;
        return true;
      };
    },
  };
}
