import type { Sql } from "./createStore.ts";

/** A strike waiting to be recorded on chain. */
export type QueuedStrike = { idemKey: string; resourceId: string; reason: string; attempts: number };

/** Queues a strike for a failed call; a call is struck at most once. Returns whether it was queued now. */
export async function enqueueStrike(
  tx: Sql,
  strike: { idemKey: string; resourceId: string; reason: string },
  now: number,
) {
  const rows = await tx.query(
    `INSERT INTO strike (idem_key, resource_id, reason, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (idem_key) DO NOTHING RETURNING idem_key`,
    [strike.idemKey, strike.resourceId, strike.reason, now],
  );
  return rows.length === 1;
}

/** Whether a strike exists for `idemKey`. */
export async function strikeQueued(tx: Sql, idemKey: string): Promise<boolean> {
  return (await tx.query("SELECT 1 FROM strike WHERE idem_key = $1", [idemKey])).length === 1;
}

/** Claims queued strikes for sending, with a lease so instances do not send the same one together. */
export async function claimStrikes(tx: Sql, now: number, leaseSeconds: number, limit = 16): Promise<QueuedStrike[]> {
  const rows = await tx.query<{ idem_key: string; resource_id: string; reason: string; attempts: number }>(
    `UPDATE strike SET lease_until = $1 + $2, attempts = attempts + 1
      WHERE idem_key IN (SELECT idem_key FROM strike WHERE status = 'queued' AND lease_until <= $1
                          ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED)
      RETURNING idem_key, resource_id, reason, attempts`,
    [now, leaseSeconds, limit],
  );
  return rows.map((r) => ({
    idemKey: r.idem_key,
    resourceId: r.resource_id,
    reason: r.reason,
    attempts: Number(r.attempts),
  }));
}

/** Records the outcome of sending a strike. */
export async function finishStrike(
  tx: Sql,
  idemKey: string,
  outcome: { status: "recorded" | "failed" | "queued"; txHash?: string; error?: string; retryAt?: number },
) {
  await tx.query(
    "UPDATE strike SET status = $2, tx_hash = COALESCE($3, tx_hash), last_error = $4, lease_until = COALESCE($5, lease_until) WHERE idem_key = $1",
    [idemKey, outcome.status, outcome.txHash ?? null, outcome.error ?? null, outcome.retryAt ?? null],
  );
}
