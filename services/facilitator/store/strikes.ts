import type { Sql } from "./createStore.ts";

/**
 * What names a strike: the failed call's buyer (lowercase) and payment nonce. A nonce is unique only per buyer, so the
 * queue is keyed by both, as the registry's `strikeKeyOf(buyer, nonce)` is.
 */
export type StrikeKey = { idemKey: string; buyer: string };

/** A strike waiting to be recorded on chain. */
export type QueuedStrike = StrikeKey & { resourceId: string; reason: string; attempts: number };

/** Queues a strike for a failed call; a (buyer, nonce) is struck at most once. Returns whether it was queued now. */
export async function enqueueStrike(tx: Sql, strike: StrikeKey & { resourceId: string; reason: string }, now: number) {
  const rows = await tx.query(
    `INSERT INTO strike (idem_key, buyer, resource_id, reason, created_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (idem_key, buyer) DO NOTHING RETURNING idem_key`,
    [strike.idemKey, strike.buyer.toLowerCase(), strike.resourceId, strike.reason, now],
  );
  return rows.length === 1;
}

/** Whether a strike exists for the buyer's `idemKey`. */
export async function strikeQueued(tx: Sql, key: StrikeKey): Promise<boolean> {
  return (
    (await tx.query("SELECT 1 FROM strike WHERE idem_key = $1 AND buyer = $2", [key.idemKey, key.buyer.toLowerCase()]))
      .length === 1
  );
}

/** Claims queued strikes for sending, with a lease so instances do not send the same one together. */
export async function claimStrikes(tx: Sql, now: number, leaseSeconds: number, limit = 16): Promise<QueuedStrike[]> {
  const rows = await tx.query<{
    idem_key: string;
    buyer: string;
    resource_id: string;
    reason: string;
    attempts: number;
  }>(
    `UPDATE strike SET lease_until = $1 + $2, attempts = attempts + 1
      WHERE (idem_key, buyer) IN (SELECT idem_key, buyer FROM strike WHERE status = 'queued' AND lease_until <= $1
                                   ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED)
      RETURNING idem_key, buyer, resource_id, reason, attempts`,
    [now, leaseSeconds, limit],
  );
  return rows.map((r) => ({
    idemKey: r.idem_key,
    buyer: r.buyer,
    resourceId: r.resource_id,
    reason: r.reason,
    attempts: Number(r.attempts),
  }));
}

/** Records the outcome of sending a strike. */
export async function finishStrike(
  tx: Sql,
  key: StrikeKey,
  outcome: { status: "recorded" | "failed" | "queued"; txHash?: string; error?: string; retryAt?: number },
) {
  await tx.query(
    `UPDATE strike SET status = $3, tx_hash = COALESCE($4, tx_hash), last_error = $5, lease_until = COALESCE($6, lease_until)
      WHERE idem_key = $1 AND buyer = $2`,
    [
      key.idemKey,
      key.buyer.toLowerCase(),
      outcome.status,
      outcome.txHash ?? null,
      outcome.error ?? null,
      outcome.retryAt ?? null,
    ],
  );
}
