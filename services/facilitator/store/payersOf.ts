import type { Sql } from "./createStore.ts";

/**
 * The payers (lowercase) holding `idemKey`: as a reservation for `resourceId` (a row with a payload: see
 * findReservation), or as a result while retained at `now`, or a payment still open (reserved, or settling with no
 * result yet). At most two are read: a route that names no payer acts only when exactly one holds the nonce.
 * @example const payers = await payersOf(store, { table: "reservation", idemKey, resourceId })
 */
export async function payersOf(
  sql: Sql,
  p: { table: "reservation"; idemKey: string; resourceId: string } | { table: "result"; idemKey: string; now: number },
): Promise<string[]> {
  const rows =
    p.table === "reservation"
      ? await sql.query<{ buyer: string }>(
          "SELECT buyer FROM reservation WHERE idem_key = $1 AND resource_id = $2 AND payload IS NOT NULL LIMIT 2",
          [p.idemKey, p.resourceId],
        )
      : await sql.query<{ buyer: string }>(
          `SELECT buyer FROM reservation
            WHERE idem_key = $1 AND (expires_at > $2 OR (status IN ('reserved', 'settling') AND payload IS NOT NULL)) LIMIT 2`,
          [p.idemKey, p.now],
        );
  return rows.map((row) => row.buyer);
}
