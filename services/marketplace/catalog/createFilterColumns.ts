import type { CatalogEntry } from "./catalogEntry.ts";
import type { ResourcesQuery } from "./resourcesQuery.ts";

/**
 * The filter fields of the listed records as typed arrays in listed order, so a filtered read is a tight scan over
 * contiguous memory rather than a walk over objects. Base units are kept as float64 for the scan; when a float ties
 * with the bound (possible above 2^53), the exact BigInt decides, so comparisons stay exact.
 * @example const columns = createFilterColumns(); columns.insert(0, 0); columns.write(0, entry)
 */
export function createFilterColumns() {
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

/** The filter columns of a catalog. */
export type FilterColumns = ReturnType<typeof createFilterColumns>;
