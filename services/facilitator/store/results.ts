import type { Sql } from "./createStore.ts";
import type { StoredResponse } from "./reservations.ts";

/** A settled call as served by `GET /results/:idemKey` and replayed to a repeated settle. */
export type StoredResult = {
  idemKey: string;
  resourceId: string;
  response: StoredResponse;
  receipt: string;
  /** The exact `POST /settle` answer, returned again to a repeated settle. */
  body: Record<string, unknown>;
  settledAt: number;
  expiresAt: number;
};

type Row = {
  idem_key: string;
  resource_id: string;
  response: StoredResponse | string;
  receipt: string;
  body: Record<string, unknown> | string;
  settled_at: string | number;
  expires_at: string | number;
};

const parse = <T>(value: T | string): T => (typeof value === "string" ? (JSON.parse(value) as T) : value);

/**
 * Stores a settled result and marks its reservation settled with the debit's transaction and block, in one
 * statement. Returns the stored settle answer: this one, or the one a racing duplicate stored first.
 */
export async function recordSettlement(
  sql: Sql,
  result: StoredResult,
  debit: { transaction: string; block: bigint },
): Promise<Record<string, unknown>> {
  const [row] = await sql.query<{ body: Record<string, unknown> | string }>(
    `WITH stored AS (
       INSERT INTO result (idem_key, resource_id, response, receipt, body, settled_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (idem_key) DO NOTHING RETURNING body
     ), settled AS (
       UPDATE reservation SET status = 'settled', tx_hash = COALESCE($8, tx_hash), mined_block = $9, updated_at = $6
        WHERE idem_key = $1
     )
     SELECT body FROM stored`,
    [
      result.idemKey,
      result.resourceId,
      JSON.stringify(result.response),
      result.receipt,
      JSON.stringify(result.body),
      result.settledAt,
      result.expiresAt,
      debit.transaction,
      debit.block.toString(),
    ],
  );
  if (row) return parse(row.body);
  return (await findResult(sql, result.idemKey, result.settledAt))?.body ?? result.body;
}

/** The stored result of `idemKey` while it is retained (`expires_at` after `now`), else null. */
export async function findResult(tx: Sql, idemKey: string, now: number): Promise<StoredResult | null> {
  const [row] = await tx.query<Row>("SELECT * FROM result WHERE idem_key = $1 AND expires_at > $2", [idemKey, now]);
  if (!row) return null;
  return {
    idemKey: row.idem_key,
    resourceId: row.resource_id,
    response: parse(row.response),
    receipt: row.receipt,
    body: parse(row.body),
    settledAt: Number(row.settled_at),
    expiresAt: Number(row.expires_at),
  };
}

/** Deletes results past their retention. */
export async function purgeResults(tx: Sql, now: number): Promise<number> {
  return (await tx.query("DELETE FROM result WHERE expires_at <= $1 RETURNING idem_key", [now])).length;
}
