import type { Hex } from "viem";
import { defined } from "../../protocol/defined.ts";
import type { Sql } from "../../store/store.ts";

/** A resource's probe record as stored: `history` is one character per probe, oldest first, `1` pass, `0` fail. */
export type StoredProbes = {
  resourceId: Hex;
  history: boolean[];
  lastOk: boolean;
  lastError: string | null;
  checkedAt: number;
  seq: bigint;
};

type Row = {
  resource_id: string;
  history: string;
  last_ok: boolean;
  last_error: string | null;
  checked_at: string | number;
  seq: string | number;
};

function fromRow(row: Row): StoredProbes {
  return {
    resourceId: row.resource_id as Hex,
    history: [...row.history].map((c) => c === "1"),
    lastOk: row.last_ok,
    lastError: row.last_error,
    checkedAt: Number(row.checked_at),
    seq: BigInt(row.seq),
  };
}

/**
 * Appends one probe result, keeping the last `keep` results; returns the history after it.
 * @example await recordProbe(store, resourceId, { ok: false, error: "card: unreachable" }, 100)
 */
export async function recordProbe(
  sql: Sql,
  resourceId: Hex,
  result: { ok: boolean; error?: string | undefined },
  keep: number,
  now = Date.now(),
): Promise<boolean[]> {
  const bit = result.ok ? "1" : "0";
  const [row] = await sql.query<Row>(
    `INSERT INTO probe (resource_id, history, last_ok, last_error, checked_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (resource_id) DO UPDATE SET history = right(probe.history || $2, $6), last_ok = $3, last_error = $4, checked_at = $5,
       seq = next_change_seq()
     RETURNING *`,
    [resourceId, bit, result.ok, result.ok ? null : (result.error ?? "failed"), now, keep],
  );
  return fromRow(defined(row, "the upserted probe row")).history;
}

/** Probe records written after `afterSeq`, oldest change first. */
export async function probesChangedSince(sql: Sql, afterSeq: bigint, limit = 5_000): Promise<StoredProbes[]> {
  const rows = await sql.query<Row>(`SELECT * FROM probe WHERE seq > $1 ORDER BY seq LIMIT $2`, [
    afterSeq.toString(),
    limit,
  ]);
  return rows.map(fromRow);
}
