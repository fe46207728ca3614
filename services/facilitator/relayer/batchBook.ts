import type { Hex } from "viem";
import type { ForcedReason } from "./holdPolicy.ts";

/**
 * The relayer's book of one mined settlement transaction (a batch of debits, or one `exact` payment): what it cost
 * and what the treasury earned by it. `gasPriceWei` is the receipt's effective gas price; `debits` counts the items
 * debited (skipped items cost gas but earn nothing); `forced` says why held debits went out at a loss.
 */
export type BatchBook = {
  transaction: Hex;
  block: bigint;
  items: number;
  debits: number;
  gasUsed: bigint;
  gasPriceWei: bigint;
  treasuryUnits: bigint;
  /** Set when held debits were sent before their batch paid for itself: forced by a deadline or the longest hold. */
  forced?: ForcedReason;
};
