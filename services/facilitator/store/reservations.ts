import type { Hex } from "viem";
import type { Sql } from "./createStore.ts";

/** Lifecycle of a reservation: reserved → settling → settled, or reserved → released / expired. */
export type ReservationStatus = "reserved" | "settling" | "settled" | "released" | "expired";

/** A reservation row as the services use it; amounts as bigint, times as unix seconds. */
export type Reservation = {
  idemKey: Hex;
  scheme: "service-escrow" | "exact";
  buyer: Hex;
  resourceId: Hex;
  cap: bigint;
  payload: StoredPayload;
  validBefore: number;
  status: ReservationStatus;
  amount: bigint | null;
  response: StoredResponse | null;
  txHash: Hex | null;
  /** The block verify read the chain at: no debit of this reservation is mined before it (null: reserved before it was kept). */
  fromBlock: bigint | null;
};

/**
 * The normalised payment as reserved: enough to submit the debit later, even after a restart. `signedBy` is
 * `"contract"` when verify accepted the signature through ERC-1271 (the relayer budgets that check's gas).
 */
export type StoredPayload = {
  scheme: string;
  authorization: Record<string, string>;
  signature: Hex;
  signedBy?: "contract";
};

/** The handler's response as the gate validated it; persisted so a retry gets the same bytes. */
export type StoredResponse = { status: number; contentType: string; body: unknown };

type Row = {
  idem_key: string;
  scheme: string;
  buyer: string;
  resource_id: string;
  cap: string;
  payload: StoredPayload | string;
  valid_before: string | number;
  status: ReservationStatus;
  amount: string | null;
  response: StoredResponse | string | null;
  tx_hash: string | null;
  from_block: string | number | null;
};

const columns =
  "idem_key, scheme, buyer, resource_id, cap::text AS cap, payload, valid_before, status, amount::text AS amount, response, tx_hash, from_block::text AS from_block";

function json<T>(value: T | string): T {
  return typeof value === "string" ? (JSON.parse(value) as T) : value;
}

function toReservation(row: Row): Reservation {
  return {
    idemKey: row.idem_key as Hex,
    scheme: row.scheme as Reservation["scheme"],
    buyer: row.buyer as Hex,
    resourceId: row.resource_id as Hex,
    cap: BigInt(row.cap),
    payload: json(row.payload),
    validBefore: Number(row.valid_before),
    status: row.status,
    amount: row.amount === null ? null : BigInt(row.amount),
    response: row.response === null ? null : json(row.response),
    txHash: row.tx_hash as Hex | null,
    fromBlock: row.from_block === null ? null : BigInt(row.from_block),
  };
}

/** What `reserve` decided: the reservation was made, or why not (`held` is what the buyer already has held). */
export type ReserveOutcome =
  | { outcome: "reserved" | "insufficient_balance" | "over_cap"; held: bigint }
  | { outcome: "nonce_used" };

/**
 * Reserves `cap` for a payment in one statement (the `reserve_payment` function, migration 2): under the buyer's
 * lock, which holds across instances sharing a database, it sums what is held — live reservations, debits settling,
 * debits mined at or after `atBlock` — and inserts the reservation only if `available` (the chain's balance as of
 * `atBlock`, less any pending withdrawal) covers it and `room` (what the spend limit leaves, null for none) allows it.
 */
export async function reserve(
  sql: Sql,
  r: Pick<Reservation, "idemKey" | "scheme" | "buyer" | "resourceId" | "cap" | "payload" | "validBefore">,
  chain: { now: number; available: bigint; room: bigint | null; atBlock: bigint },
): Promise<ReserveOutcome> {
  const [row] = await sql.query<{ outcome: ReserveOutcome["outcome"]; held: string | null }>(
    "SELECT outcome, held::text AS held FROM reserve_payment($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    [
      r.idemKey,
      r.scheme,
      r.buyer.toLowerCase(),
      r.resourceId,
      r.cap.toString(),
      JSON.stringify(r.payload),
      r.validBefore,
      chain.now,
      chain.available.toString(),
      chain.room?.toString() ?? null,
      chain.atBlock.toString(),
    ],
  );
  if (!row || row.outcome === "nonce_used") return { outcome: "nonce_used" };
  return { outcome: row.outcome, held: BigInt(row.held ?? "0") };
}

/** The reservation of `idemKey`, optionally locked until the transaction ends. */
export async function findReservation(tx: Sql, idemKey: string, forUpdate = false): Promise<Reservation | null> {
  const rows = await tx.query<Row>(
    `SELECT ${columns} FROM reservation WHERE idem_key = $1${forUpdate ? " FOR UPDATE" : ""}`,
    [idemKey],
  );
  return rows[0] ? toReservation(rows[0]) : null;
}

/**
 * The common path of a settle in one statement: a live reservation of `resourceId` becomes settling with the
 * amount to debit (the cap for `exact`, else min(amount, cap)), the response and a lease. Null when it is not
 * live and reserved (absent, another resource, expired, already settling or done): the caller then looks closer.
 */
export async function claimForSettlement(
  sql: Sql,
  c: { idemKey: string; resourceId: string; amount: bigint; response: StoredResponse; leaseUntil: number },
  now: number,
): Promise<Reservation | null> {
  const [row] = await sql.query<Row>(
    `UPDATE reservation SET status = 'settling',
        amount = CASE WHEN scheme = 'exact' THEN cap ELSE LEAST(cap, $3::numeric) END,
        response = $4::jsonb, lease_until = $5, updated_at = $6
      WHERE idem_key = $1 AND resource_id = $2 AND status = 'reserved' AND valid_before > $6
      RETURNING ${columns}`,
    [c.idemKey, c.resourceId, c.amount.toString(), JSON.stringify(c.response), c.leaseUntil, now],
  );
  return row ? toReservation(row) : null;
}

/** Moves a reservation to a new status (and records the debit amount, response, tx hash when given). */
export async function updateReservation(
  tx: Sql,
  idemKey: string,
  change: {
    status: ReservationStatus;
    amount?: bigint;
    response?: StoredResponse;
    txHash?: string;
    leaseUntil?: number;
    /** Why the reservation was given up (a release by the facilitator itself). */
    failure?: string;
  },
  now: number,
): Promise<void> {
  await tx.query(
    `UPDATE reservation SET status = $2,
        amount = COALESCE($3::numeric, amount), response = COALESCE($4::jsonb, response),
        tx_hash = COALESCE($5, tx_hash), lease_until = COALESCE($6, lease_until), updated_at = $7,
        failure = COALESCE($8, failure)
      WHERE idem_key = $1`,
    [
      idemKey,
      change.status,
      change.amount?.toString() ?? null,
      change.response ? JSON.stringify(change.response) : null,
      change.txHash ?? null,
      change.leaseUntil ?? null,
      now,
      change.failure?.slice(0, 500) ?? null,
    ],
  );
}

/** Most seconds the retrier waits between two attempts at a settlement the chain did not answer. */
export const MAX_RETRY_BACKOFF_SECONDS = 30;

/**
 * Counts a settlement attempt the chain did not answer and leases the reservation to no one until its next try:
 * 1, 2, 4 … seconds later, at most MAX_RETRY_BACKOFF_SECONDS, so one payment that keeps failing costs a bounded
 * number of attempts within its (bounded) window.
 */
export async function backOffSettlement(sql: Sql, idemKey: string, now: number): Promise<void> {
  await sql.query(
    `UPDATE reservation SET attempts = attempts + 1,
        lease_until = $2 + LEAST(power(2, LEAST(attempts, 16))::bigint, $3)
      WHERE idem_key = $1 AND status = 'settling'`,
    [idemKey, now, MAX_RETRY_BACKOFF_SECONDS],
  );
}

/** Marks reservations whose authorization has expired unsettled as expired (no strike). Returns how many. */
export async function expireReservations(tx: Sql, now: number): Promise<number> {
  const rows = await tx.query(
    `UPDATE reservation SET status = 'expired', updated_at = $1
      WHERE status = 'reserved' AND valid_before <= $1 RETURNING idem_key`,
    [now],
  );
  return rows.length;
}

/**
 * Claims settling reservations that no live settle is driving (lease passed), for the retrier; the lease keeps
 * two instances from driving the same debit at once.
 */
export async function claimStaleSettling(
  tx: Sql,
  now: number,
  leaseSeconds: number,
  limit = 64,
): Promise<Reservation[]> {
  const rows = await tx.query<Row>(
    `UPDATE reservation SET lease_until = $1 + $2
      WHERE idem_key IN (SELECT idem_key FROM reservation WHERE status = 'settling' AND lease_until <= $1
                          ORDER BY updated_at LIMIT $3 FOR UPDATE SKIP LOCKED)
      RETURNING ${columns}`,
    [now, leaseSeconds, limit],
  );
  return rows.map(toReservation);
}
