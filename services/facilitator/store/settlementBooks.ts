import { gasCostInTokenUnits } from "../../protocol/gasCostInTokenUnits.ts";
import type { BatchBook } from "../relayer/batchBook.ts";
import type { Sql } from "./createStore.ts";

/** The relayer's books summed over every settlement transaction recorded. Amounts in the token's base units. */
export type BookTotals = {
  transactions: number;
  debits: number;
  gasUsed: bigint;
  costUnits: bigint;
  treasuryUnits: bigint;
};

/**
 * Records the book of one mined settlement transaction and adds it to the running totals, once: a transaction
 * recorded again (two instances, a retry) changes nothing. Returns whether it was recorded now.
 * @example await store.transaction((tx) => recordSettlementBook(tx, book, now))
 */
export async function recordSettlementBook(tx: Sql, book: BatchBook, now: number): Promise<boolean> {
  const cost = gasCostInTokenUnits(book.gasUsed, book.gasPriceWei);
  const inserted = await tx.query(
    `INSERT INTO settlement_book (transaction, block, items, debits, gas_used, gas_price_wei, cost_units,
                                  treasury_units, recorded_at, forced)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (transaction) DO NOTHING RETURNING transaction`,
    [
      book.transaction.toLowerCase(),
      book.block.toString(),
      book.items,
      book.debits,
      book.gasUsed.toString(),
      book.gasPriceWei.toString(),
      cost.toString(),
      book.treasuryUnits.toString(),
      now,
      book.forced ?? null,
    ],
  );
  if (inserted.length === 0) return false;
  await tx.query(
    `UPDATE settlement_book_total SET transactions = transactions + 1, debits = debits + $1,
       gas_used = gas_used + $2, cost_units = cost_units + $3, treasury_units = treasury_units + $4`,
    [book.debits, book.gasUsed.toString(), cost.toString(), book.treasuryUnits.toString()],
  );
  return true;
}

/**
 * The books' running totals (one row, whatever the history).
 * @example const { costUnits, treasuryUnits } = await readBookTotals(store)
 */
export async function readBookTotals(tx: Sql): Promise<BookTotals> {
  const [row] = await tx.query<{
    transactions: string;
    debits: string;
    gas_used: string;
    cost_units: string;
    treasury_units: string;
  }>(
    `SELECT transactions::text, debits::text, gas_used::text, cost_units::text, treasury_units::text
       FROM settlement_book_total`,
  );
  return {
    transactions: Number(row?.transactions ?? 0),
    debits: Number(row?.debits ?? 0),
    gasUsed: BigInt(row?.gas_used ?? 0),
    costUnits: BigInt(row?.cost_units ?? 0),
    treasuryUnits: BigInt(row?.treasury_units ?? 0),
  };
}
