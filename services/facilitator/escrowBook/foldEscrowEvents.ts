import type { BuyerState } from "../chain.ts";
import type { EscrowEvent } from "./escrowEvents.ts";

/** A buyer's escrow state as the book keeps it: what verify reserves against, and the last block that changed it. */
export type BookedBuyer = Pick<BuyerState, "balance" | "pendingWithdrawal" | "spendLimit"> & { changedBlock: bigint };

/** The state of a buyer the escrow has never seen: nothing deposited, no limit. */
export const UNSEEN_BUYER: BookedBuyer = {
  balance: 0n,
  pendingWithdrawal: 0n,
  spendLimit: { limit: 0n, period: 0n, windowStart: 0n, spent: 0n, pending: null },
  changedBlock: 0n,
};

/**
 * Applies escrow events, in chain order, to the buyers' states (keyed by lowercase address); returns the buyers it
 * changed. Each rule is the escrow's own (PaymentEscrow.sol): a deposit or withdrawal sets the balance its event
 * reports; a withdrawal request replaces the pending one and a withdrawal clears it; a limit put in force clears any
 * pending tightening and keeps the window; a debit from the balance lowers it and, under a limit, counts in the
 * window, which restarts at the block's time once its period has passed. An `exact` settlement changes neither.
 * @example const changed = foldEscrowEvents(buyers, await readEscrowEvents(client, range))
 */
export function foldEscrowEvents(buyers: Map<string, BookedBuyer>, events: readonly EscrowEvent[]): Set<string> {
  const changed = new Set<string>();
  for (const event of events) {
    if (event.kind === "debited" && !event.fromBalance) continue;
    const key = event.buyer.toLowerCase();
    const was = buyers.get(key) ?? UNSEEN_BUYER;
    buyers.set(key, { ...apply(was, event), changedBlock: event.block });
    changed.add(key);
  }
  return changed;
}

function apply(b: BookedBuyer, event: EscrowEvent): Omit<BookedBuyer, "changedBlock"> {
  const limit = b.spendLimit;
  switch (event.kind) {
    case "deposited":
      return { ...b, balance: event.balance };
    case "withdrawn":
      return { ...b, balance: event.balance, pendingWithdrawal: 0n };
    case "withdrawalRequested":
      return { ...b, pendingWithdrawal: event.amount };
    case "spendLimitSet":
      return { ...b, spendLimit: { ...limit, limit: event.limit, period: event.period, pending: null } };
    case "spendLimitRequested": {
      const pending = { limit: event.limit, period: event.period, effectiveAt: event.effectiveAt };
      return { ...b, spendLimit: { ...limit, pending } };
    }
    case "debited": {
      const balance = b.balance - event.amount;
      if (limit.limit === 0n) return { ...b, balance };
      const expired = event.timestamp >= limit.windowStart + limit.period;
      const window = expired
        ? { windowStart: event.timestamp, spent: event.amount }
        : { windowStart: limit.windowStart, spent: limit.spent + event.amount };
      return { ...b, balance, spendLimit: { ...limit, ...window } };
    }
  }
}
