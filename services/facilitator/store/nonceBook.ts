import type { Sql } from "./createStore.ts";

/**
 * Whether the store's `spent_nonce` tombstones cover every nonce a debit recorded here ever spent (migration 9): true
 * for a store created with them; false for an older one, which may have purged the reservations of earlier debits.
 * @example if (!(await nonceBookComplete(store))) logger.warn("every verify reads its nonce on chain")
 */
export async function nonceBookComplete(sql: Sql): Promise<boolean> {
  const [row] = await sql.query<{ complete: boolean }>("SELECT complete FROM nonce_book");
  return row?.complete === true;
}
