import type { Address, Hex } from "viem";
import { splitAmount } from "../protocol/price.ts";
import { unpackDebits } from "../protocol/unpackDebits.ts";
import type { projections } from "./createProjectionsClient.ts";

/** A `debit_batch` row as `@ponder/client` reads it. */
export type DebitBatchRow = typeof projections.debitBatch.$inferSelect;

/** One settled call of a `debit_batch` row: its buyer, nonce and amount, split as the escrow credited it. */
export type IndexedDebit = {
  /** `<log id>-<its place in the log>`. */
  id: string;
  resourceId: Hex;
  buyer: Address;
  nonce: Hex;
  amount: bigint;
  creatorAmount: bigint;
  treasuryAmount: bigint;
  scheme: string;
  payout: Hex;
  blockNumber: bigint;
  timestamp: bigint;
  transactionHash: Hex;
};

/**
 * The debits of a `debit_batch` row, in log order: the indexer keeps one row per `BatchDebited` log, so a reader that
 * needs single debits (by buyer, by nonce) decodes them on read, with the protocol's decoder (unpackDebits).
 * @example const rows = await indexer.db.select().from(projections.debitBatch); rows.flatMap(debitsOfBatch)
 */
export function debitsOfBatch(row: DebitBatchRow): IndexedDebit[] {
  return unpackDebits(row.debits).map(({ buyer, nonce, amount }, index) => {
    const { creator, treasury } = splitAmount(amount, row.feeBps);
    return {
      id: `${row.id}-${index}`,
      resourceId: row.resourceId,
      buyer,
      nonce,
      amount,
      creatorAmount: creator,
      treasuryAmount: treasury,
      scheme: row.scheme,
      payout: row.payout,
      blockNumber: row.blockNumber,
      timestamp: row.timestamp,
      transactionHash: row.transactionHash,
    };
  });
}
