import type { BuyerState } from "./chain.ts";

/**
 * What a buyer's on-chain spend limit leaves for a debit mined before `validBefore`, as of `now` (null: no limit).
 * The limit in force counts; so does a pending tightening that may be applied before `validBefore` (anyone may apply
 * it from `effectiveAt` on, and the escrow then checks the debit against it): the smaller room is the one left.
 * @example const room = spendLimitRoom(state.spendLimit, BigInt(now), authorization.validBefore)
 */
export function spendLimitRoom(spendLimit: BuyerState["spendLimit"], now: bigint, validBefore: bigint): bigint | null {
  const { limit, period, windowStart, spent, pending } = spendLimit;
  const roomUnder = (l: bigint, p: bigint) => (l === 0n ? null : l - (now >= windowStart + p ? 0n : spent));
  const inForce = roomUnder(limit, period);
  const due = pending !== null && pending.effectiveAt < validBefore ? roomUnder(pending.limit, pending.period) : null;
  if (due === null) return inForce;
  return inForce === null || due < inForce ? due : inForce;
}
