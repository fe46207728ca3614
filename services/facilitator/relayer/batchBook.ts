import type { Hex } from "viem";

/**
 * The relayer's book of one mined settlement transaction (a batch of debits, or one `exact` payment): what it cost
 * and what the treasury earned by it. `gasPriceWei` is the receipt's effective gas price; `debits` counts the items
 * debited (skipped items cost gas but earn nothing).
 */
export type BatchBook = {
  transaction: Hex;
  block: bigint;
  items: number;
  debits: number;
  gasUsed: bigint;
  gasPriceWei: bigint;
  treasuryUnits: bigint;
};
