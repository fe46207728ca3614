import type { Address, Hex } from "viem";
import type { EscrowEvent } from "./escrowEvents.ts";

/** A debit this facilitator saw mined: its buyer and nonce, and the block it was mined in. */
export type MinedDebit = { buyer: Address; nonce: Hex; block: bigint };

const keyOf = (buyer: string, nonce: string) => `${buyer}:${nonce}`.toLowerCase();

/**
 * The debits this facilitator saw mined in blocks its escrow book has not passed yet: the page of events that covers
 * their block must hold them (else the RPC answered logs it did not have yet), and a debit the book passed without
 * checking it (another instance booked the block, or it was reported after the page was read) names a buyer to audit.
 * @example const expected = expectedDebits(); expected.add(d); const { missing } = expected.check(from, to, events)
 */
export function expectedDebits() {
  const byBlock = new Map<bigint, Map<string, Address>>();
  return {
    add(d: MinedDebit): void {
      const at = byBlock.get(d.block) ?? new Map<string, Address>();
      at.set(keyOf(d.buyer, d.nonce), d.buyer);
      byBlock.set(d.block, at);
    },

    /** The expected debits of blocks `from`..`to` that `events` hold (`found`), and how many they lack (`missing`). */
    check(from: bigint, to: bigint, events: readonly EscrowEvent[]): { found: Set<string>; missing: number } {
      const booked = new Set(events.flatMap((e) => (e.kind === "debited" ? [keyOf(e.buyer, e.nonce)] : [])));
      const found = new Set<string>();
      let missing = 0;
      for (const [block, debits] of byBlock) {
        if (block < from || block > to) continue;
        for (const key of debits.keys()) {
          if (booked.has(key)) found.add(key);
          else missing++;
        }
      }
      return { found, missing };
    },

    /** Forgets the debits of blocks up to `block`; returns the buyers of those not among `found`, to audit. */
    pass(block: bigint, found: ReadonlySet<string> = new Set()): Address[] {
      const unchecked = new Set<Address>();
      for (const [at, debits] of byBlock) {
        if (at > block) continue;
        byBlock.delete(at);
        for (const [key, buyer] of debits) if (!found.has(key)) unchecked.add(buyer);
      }
      return [...unchecked];
    },

    clear: (): void => byBlock.clear(),
  };
}
