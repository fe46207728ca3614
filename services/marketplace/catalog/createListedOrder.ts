import type { CatalogEntry } from "./catalogEntry.ts";
import { createFilterColumns } from "./createFilterColumns.ts";

function before(a: CatalogEntry, b: CatalogEntry): boolean {
  const ab = a.chain!.registeredBlock;
  const bb = b.chain!.registeredBlock;
  return ab < bb || (ab === bb && a.resourceId < b.resourceId);
}

/**
 * The listed entries in registration order, with their filter columns in the same order and each entry's position
 * by slot (-1 while not listed), so ranking text-index hits reads one typed array rather than entries scattered over
 * the heap. Listing keeps the order by binary search; unlisting closes the gap.
 * @example const order = createListedOrder(); order.reserveSlot(entry.slot); order.add(entry)
 */
export function createListedOrder() {
  const listed: CatalogEntry[] = [];
  const columns = createFilterColumns();
  let positionOfSlot = new Int32Array(1024).fill(-1);

  const place = (entry: CatalogEntry, pos: number) => {
    entry.pos = pos;
    positionOfSlot[entry.slot] = pos;
  };

  return {
    listed: listed as readonly CatalogEntry[],
    columns,
    /** Makes room for an entry's slot number (slots are numbered from 0 as entries are made). */
    reserveSlot(slot: number): void {
      if (slot < positionOfSlot.length) return;
      const grown = new Int32Array(Math.max(slot + 1, positionOfSlot.length * 2)).fill(-1);
      grown.set(positionOfSlot);
      positionOfSlot = grown;
    },
    /** The listed position of the entry in `slot`, or -1. */
    positionOf(slot: number): number {
      return positionOfSlot[slot]!;
    },
    /** Lists `entry` in registration order, or rewrites its columns if it is listed; true when newly listed. */
    add(entry: CatalogEntry): boolean {
      if (entry.listed) {
        columns.write(entry.pos, entry);
        return false;
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
      return true;
    },
    /** Takes `entry` out of the listed order (nothing when it is not listed). */
    remove(entry: CatalogEntry): void {
      if (!entry.listed) return;
      entry.listed = false;
      const at = entry.pos;
      listed.splice(at, 1);
      columns.remove(at, listed.length);
      for (let i = at; i < listed.length; i++) place(listed[i]!, i);
      entry.pos = -1;
      positionOfSlot[entry.slot] = -1;
    },
  };
}

/** A catalog's listed order. */
export type ListedOrder = ReturnType<typeof createListedOrder>;
