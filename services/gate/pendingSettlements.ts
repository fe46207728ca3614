import type { PendingSettlement } from "./gateRuntime.ts";

/**
 * Most bytes of kept responses a gate holds for settlements answered 503 (16 MiB): during an outage of the relayer's
 * sends with the chain's reads still answering, verify keeps admitting calls whose settles all answer 503, each kept
 * for its authorization's life (up to an hour), and the gate held every one of them.
 */
export const PENDING_MAX_BYTES = 16 * 1024 * 1024;

/** What a kept settlement weighs: its response text, twice (as text and parsed), and about a kilobyte besides. */
const weightOf = (s: PendingSettlement) => 2 * s.text.length + 1024;

/** Settlements answered 503 by a gate, by payment (keyOfPayment), until their authorization expires. */
export type PendingSettlements = {
  get(key: string): PendingSettlement | undefined;
  delete(key: string): void;
  /** Keeps `settlement` under `key` and lets go of the expired ones ahead of it, and of the oldest past the limit. */
  keep(key: string, settlement: PendingSettlement, now: number): void;
  /** How many are kept, and their weight. */
  size(): { count: number; bytes: number };
};

/**
 * The settlements a gate answered 503, kept so that a retry of the same payment settles the same response again, at
 * most `maxBytes` of them. Past the limit the oldest goes first: a retry of it is answered as after the gate's
 * restart, from the facilitator, which holds the response too: 503 `settlement_pending` until the debit is settled,
 * then the result. Keeping one costs O(1) amortised: expired ones are let go from the oldest on, and none is looked at
 * twice.
 * @example const pending = createPendingSettlements(); pending.keep(keyOfPayment(key), settlement, now)
 */
export function createPendingSettlements(maxBytes = PENDING_MAX_BYTES): PendingSettlements {
  const kept = new Map<string, PendingSettlement>();
  let bytes = 0;
  const remove = (key: string) => {
    const entry = kept.get(key);
    if (!entry) return;
    kept.delete(key);
    bytes -= weightOf(entry);
  };
  return {
    get: (key) => kept.get(key),
    delete: remove,
    keep(key, settlement, now) {
      remove(key);
      const weight = weightOf(settlement);
      for (const [oldest, entry] of kept) {
        if (entry.expiresAt > now && bytes + weight <= maxBytes) break;
        remove(oldest);
      }
      kept.set(key, settlement);
      bytes += weight;
    },
    size: () => ({ count: kept.size, bytes }),
  };
}
