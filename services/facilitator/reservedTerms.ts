import type { Address, Hex } from "viem";
import type { ReservationKey } from "./store/reservations.ts";
import { keyOf } from "./store/reservations.ts";

/** What a verify reserved for an escrow payment, kept so that its settle can commit in one statement. */
export type ReservedTerms = {
  resourceId: Hex;
  buyer: Address;
  cap: bigint;
  validBefore: number;
  signedBy: "key" | "contract";
};

/** Most reservations remembered; past it the oldest is forgotten (its settle then takes the general path). */
const MAX_TERMS = 100_000;

/**
 * The terms of the escrow reservations this instance verified and has not settled yet, in memory. A settle that finds
 * its terms here knows the buyer, the cap and how the payment was signed without reading the store, so it can claim
 * the reservation and store the committed result in one statement; the statement still checks the row (status,
 * resource, cap), so a stale or forged entry only sends the settle down the general path. Another instance, a
 * restart or an evicted entry likewise take the general path.
 * @example const terms = createReservedTerms(); terms.remember(idemKey, { buyer, ... }); terms.take({ idemKey, buyer })
 */
export function createReservedTerms(maxTerms = MAX_TERMS) {
  const terms = new Map<string, ReservedTerms>();
  return {
    remember(idemKey: Hex, reserved: ReservedTerms): void {
      terms.set(keyOf({ idemKey, buyer: reserved.buyer }), reserved);
      if (terms.size > maxTerms) {
        const oldest = terms.keys().next();
        if (!oldest.done) terms.delete(oldest.value);
      }
    },
    /** The terms of a buyer's `idemKey`, forgotten as they are returned: a settle takes them once. */
    take(reservation: ReservationKey): ReservedTerms | undefined {
      const key = keyOf(reservation);
      const found = terms.get(key);
      terms.delete(key);
      return found;
    },
    get size(): number {
      return terms.size;
    },
  };
}

/** A facilitator's reserved terms. */
export type ReservedTermsBook = ReturnType<typeof createReservedTerms>;
