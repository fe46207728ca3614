import type { Address, Hex } from "viem";
import type { BuyerState } from "./chain.ts";

/**
 * A buyer's escrow state as verify uses it. `nonceSpent` is null when the state is a snapshot shared with an earlier
 * read: it was read for another nonce, and the store is what refuses a reused one: a reservation row for every nonce
 * it holds, and a `spent_nonce` tombstone, never purged, for every nonce a debit recorded there spent (finished
 * reservations are purged a day after their window). Snapshots are shared only when that book of tombstones is
 * complete (createFacilitator).
 */
export type BuyerSnapshot = Omit<BuyerState, "nonceSpent"> & { nonceSpent: boolean | null };

/** Most buyers kept; past it, snapshots older than the lifetime are dropped. */
const MAX_BUYERS = 10_000;

/**
 * Recent escrow state per buyer, so that a buyer's verifies within `ttlMs` share one `buyerState` eth_call instead of
 * waiting for one each (0: every verify reads the chain). A snapshot may be older than the chain, and that is safe:
 * reserving counts as held every debit mined at or after the snapshot's block, and every debit committed or
 * settling, so the balance is never counted twice in the buyer's favour; money leaves the escrow only through the
 * relayer (which shares this store) or a withdrawal a day after its request, and a tighter spend limit also waits a
 * day, both far longer than `ttlMs`. What a stale snapshot can do is refuse a buyer who has just deposited or
 * loosened its limit; verify then reads afresh before it refuses (`fresh`).
 * @example const snapshots = createBuyerSnapshots((buyer, nonce) => chain.buyerState(buyer, nonce), 1_000)
 */
export function createBuyerSnapshots(
  read: (buyer: Address, nonce: Hex) => Promise<BuyerState>,
  ttlMs: number,
  now: () => number = Date.now,
) {
  const snapshots = new Map<string, { at: number; read: Promise<BuyerState> }>();

  function prune(at: number): void {
    if (snapshots.size < MAX_BUYERS) return;
    for (const [buyer, snapshot] of snapshots) if (at - snapshot.at >= ttlMs) snapshots.delete(buyer);
  }

  return {
    /** The buyer's state: a shared snapshot younger than `ttlMs`, else (or with `fresh`) one read now for `nonce`. */
    async get(buyer: Address, nonce: Hex, { fresh = false } = {}): Promise<BuyerSnapshot> {
      const key = buyer.toLowerCase();
      const at = now();
      const shared = snapshots.get(key);
      if (!fresh && shared && at - shared.at < ttlMs) return { ...(await shared.read), nonceSpent: null };
      const reading = read(buyer, nonce);
      if (ttlMs > 0) {
        prune(at);
        snapshots.set(key, { at, read: reading });
        reading.catch(() => {
          if (snapshots.get(key)?.read === reading) snapshots.delete(key);
        });
      }
      return reading;
    },
  };
}

/** A facilitator's buyer snapshots. */
export type BuyerSnapshots = ReturnType<typeof createBuyerSnapshots>;
