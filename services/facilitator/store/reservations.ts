import type { Hex } from "viem";
import { coalescedFor } from "../../store/coalesce.ts";
import type { Sql, Store } from "./createStore.ts";

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
  /** When its settle was answered committed, before the debit was mined (null: not committed). */
  committedAt: number | null;
  /** The hash of the request it was reserved for (requestHash.ts); null when the gate sent none. */
  requestHash?: Hex | null;
};

/** What names a reservation: a nonce is the buyer's own, so two buyers may each hold one with the same idemKey. */
export type ReservationKey = { idemKey: string; buyer: string };

/**
 * The normalised payment as reserved: enough to submit the debit later, even after a restart. `signedBy` is
 * `"contract"` when verify accepted the signature through ERC-1271 (the relayer budgets that check's gas).
 */
export type StoredPayload = {
  scheme: string;
  authorization: Record<string, string>;
  signature: Hex;
  signedBy?: "contract";
  /**
   * Unix seconds: when the reservation expires unsettled, when that is before the authorization's `validBefore` (a
   * long window, signed so that the committed debit can be held, does not hold the buyer's funds for an unsettled call).
   */
  reservedUntil?: number;
};

/**
 * When a reservation still unsettled expires: its `reservedUntil`, else the authorization's end.
 * @example if (reservationEnd(r) <= now) expire(r)
 */
export function reservationEnd(r: Pick<Reservation, "payload" | "validBefore">): number {
  return Math.min(r.validBefore, r.payload.reservedUntil ?? r.validBefore);
}

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
  committed_at: string | number | null;
  request_hash: string | null;
};

const columns =
  "idem_key, scheme, buyer, resource_id, cap::text AS cap, payload, valid_before, status, amount::text AS amount, response, tx_hash, from_block::text AS from_block, committed_at, request_hash";

/** `columns` of the reservation aliased `r`. */
const qualifiedColumns = columns.replace(/(^|, )(\w+)/g, "$1r.$2");

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
    committedAt: row.committed_at === null ? null : Number(row.committed_at),
    requestHash: row.request_hash as Hex | null,
  };
}

/**
 * What `reserve` decided: the reservation was made, or why not (`held` is what the buyer already has held, `available`
 * what its state allowed: the chain's figure, or the escrow book's), or `book_behind` when the escrow book it was told
 * to read has not been current for its allowed lag.
 */
export type ReserveOutcome =
  | { outcome: "reserved" | "insufficient_balance" | "over_cap"; held: bigint; available: bigint }
  | { outcome: "nonce_used" | "book_behind" };

/**
 * The buyer's state a reservation is checked against: read on chain at `atBlock` (`available` is the balance less any
 * pending withdrawal, `room` what the spend limit leaves, null for none), or taken from the store's escrow book
 * (escrowBook/), which must have been current within `maxLagSeconds`.
 */
export type ReserveAgainst =
  | { now: number; available: bigint; room: bigint | null; atBlock: bigint }
  | { now: number; book: { maxLagSeconds: number } };

type ReserveItem = {
  r: Pick<Reservation, "idemKey" | "scheme" | "buyer" | "resourceId" | "cap" | "payload" | "validBefore"> & {
    requestHash?: Hex | undefined;
  };
  chain: ReserveAgainst;
};

type ReserveRow = { outcome: ReserveOutcome["outcome"]; held: string | null; available: string | null };

/**
 * Reserves `cap` for a payment with the `reserve_calls` function (migration 13): under the buyer's lock, which holds
 * across instances sharing a database, it refuses a nonce this buyer holds or a debit of this store or the chain spent
 * (`spent_nonce`), sums what is held — live reservations at their cap, debits settling and debits mined after the
 * state's block at their amount — and inserts the reservation only if the buyer's available balance covers it and its
 * spend limit's room allows it. Concurrent reservations go to the store together, one statement per group (coalesce),
 * each seeing the ones before it.
 */
export function reserve(store: Store, r: ReserveItem["r"], chain: ReserveAgainst): Promise<ReserveOutcome> {
  return coalescedFor(store, reserveMany, (items: ReserveItem[]) => reserveMany(store, items))({ r, chain });
}

/** `reserve_calls`' fields for the item at `i` in its group. */
function callItem({ r, chain }: ReserveItem, i: number) {
  const onChain = "atBlock" in chain;
  return {
    i,
    idem_key: r.idemKey,
    scheme: r.scheme,
    buyer: r.buyer.toLowerCase(),
    resource_id: r.resourceId,
    cap: r.cap.toString(),
    payload: r.payload,
    valid_before: r.validBefore,
    now: chain.now,
    available: onChain ? chain.available.toString() : null,
    room: onChain ? (chain.room?.toString() ?? null) : null,
    at_block: onChain ? chain.atBlock.toString() : null,
    request_hash: r.requestHash ?? null,
    max_lag: onChain ? null : chain.book.maxLagSeconds,
  };
}

function toOutcome(row: ReserveRow | undefined): ReserveOutcome {
  if (!row) return { outcome: "nonce_used" };
  if (row.outcome === "nonce_used" || row.outcome === "book_behind") return { outcome: row.outcome };
  return { outcome: row.outcome, held: BigInt(row.held ?? "0"), available: BigInt(row.available ?? "0") };
}

/** One statement for a group of reservations, a lone one included: `reserve_calls` answers each item by its place. */
async function reserveMany(sql: Sql, items: ReserveItem[]): Promise<ReserveOutcome[]> {
  const rows = await sql.query<ReserveRow & { i: number }>(
    "SELECT i, outcome, held::text AS held, available::text AS available FROM reserve_calls($1::jsonb)",
    [JSON.stringify(items.map(callItem))],
  );
  const outcomes: ReserveOutcome[] = items.map(() => ({ outcome: "nonce_used" }));
  for (const row of rows) outcomes[row.i] = toOutcome(row);
  return outcomes;
}

/**
 * The reservation of `key`, optionally locked until the transaction ends. A row with no payload holds only a result
 * whose reservation was purged before results moved into reservations (ONE_ROW_PER_CALL): not a reservation.
 */
export async function findReservation(tx: Sql, key: ReservationKey, forUpdate = false): Promise<Reservation | null> {
  const rows = await tx.query<Row>(
    `SELECT ${columns} FROM reservation
      WHERE idem_key = $1 AND buyer = $2 AND payload IS NOT NULL${forUpdate ? " FOR UPDATE" : ""}`,
    [key.idemKey, key.buyer.toLowerCase()],
  );
  return rows[0] ? toReservation(rows[0]) : null;
}

type ClaimItem = {
  c: ReservationKey & { resourceId: string; amount: bigint; response: StoredResponse; leaseUntil: number };
  now: number;
};

/**
 * The common path of a settle: a live reservation of `resourceId` becomes settling with the amount to debit (the
 * cap for `exact`, else min(amount, cap)), the response and a lease. Null when it is not live and reserved (absent,
 * another resource, expired, already settling or done): the caller then looks closer. Concurrent claims go to the
 * store together, one statement per group (coalesce).
 */
export function claimForSettlement(store: Store, c: ClaimItem["c"], now: number): Promise<Reservation | null> {
  return coalescedFor(store, claimMany, (items: ClaimItem[]) => claimMany(store, items))({ c, now });
}

/**
 * One statement for many claims (looked up by primary key); an idemKey twice in a group is claimed by its first
 * only. A lone claim takes the one-row statement.
 */
async function claimMany(sql: Sql, items: ClaimItem[]): Promise<(Reservation | null)[]> {
  const [only] = items;
  if (only && items.length === 1) return [await claimOne(sql, only)];
  const rows = await sql.query<Row>(
    `UPDATE reservation r SET status = 'settling',
        amount = CASE WHEN r.scheme = 'exact' THEN r.cap ELSE LEAST(r.cap, x.amount) END,
        response = ($3::json[])[x.n + 1], lease_until = x.lease_until, updated_at = x.now
       FROM (SELECT DISTINCT ON (idem_key, buyer) * FROM jsonb_to_recordset($1::jsonb)
               AS y(idem_key text, buyer text, resource_id text, amount numeric, lease_until bigint, now bigint, n int)
              ORDER BY idem_key, buyer, n) AS x
      WHERE r.idem_key = ANY($2::text[]) AND r.idem_key = x.idem_key AND r.buyer = x.buyer
        AND r.resource_id = x.resource_id
        AND r.status = 'reserved' AND r.valid_before > x.now
        AND COALESCE((r.payload->>'reservedUntil')::bigint, x.now + 1) > x.now
      RETURNING ${qualifiedColumns}`,
    [
      JSON.stringify(
        items.map(({ c, now }, n) => ({
          n,
          idem_key: c.idemKey,
          buyer: c.buyer.toLowerCase(),
          resource_id: c.resourceId,
          amount: c.amount.toString(),
          lease_until: c.leaseUntil,
          now,
        })),
      ),
      items.map(({ c }) => c.idemKey),
      items.map(({ c }) => JSON.stringify(c.response)),
    ],
  );
  return claimedInOrder(items, rows);
}

/** One string per reservation key, for maps of a group's rows. */
export const keyOf = (key: ReservationKey): string => `${key.buyer.toLowerCase()}:${key.idemKey.toLowerCase()}`;

/**
 * A group's claimed rows in its items' order: each item gets the row of its key, and a key twice in a group goes to
 * its first item only (the statement claimed it once).
 */
function claimedInOrder(items: { c: ReservationKey }[], rows: Row[]): (Reservation | null)[] {
  const claimed = new Map(rows.map((row) => [keyOf({ idemKey: row.idem_key, buyer: row.buyer }), toReservation(row)]));
  return items.map(({ c }) => {
    const r = claimed.get(keyOf(c));
    claimed.delete(keyOf(c));
    return r ?? null;
  });
}

async function claimOne(sql: Sql, { c, now }: ClaimItem): Promise<Reservation | null> {
  const [row] = await sql.query<Row>(
    `UPDATE reservation SET status = 'settling',
        amount = CASE WHEN scheme = 'exact' THEN cap ELSE LEAST(cap, $3::numeric) END,
        response = $4::json, lease_until = $5, updated_at = $6
      WHERE idem_key = $1 AND buyer = $7 AND resource_id = $2 AND status = 'reserved' AND valid_before > $6
        AND COALESCE((payload->>'reservedUntil')::bigint, $6 + 1) > $6
      RETURNING ${columns}`,
    [
      c.idemKey,
      c.resourceId,
      c.amount.toString(),
      JSON.stringify(c.response),
      c.leaseUntil,
      now,
      c.buyer.toLowerCase(),
    ],
  );
  return row ? toReservation(row) : null;
}

type CommitItem = {
  c: {
    idemKey: string;
    resourceId: string;
    /** The buyer and the cap verify reserved: the row must still hold them (the receipt and amount come from them). */
    buyer: string;
    cap: bigint;
    /** min(requested, cap). */
    amount: bigint;
    /** The response, stored once: the reservation's is its result's. */
    response: StoredResponse;
    leaseUntil: number;
    /** The committed result: its receipt (base64), from which its settle answer is read (settle_answer), kept until `expiresAt`. */
    receipt: string;
    expiresAt: number;
  };
  now: number;
};

/**
 * A committed settle in one statement, for a reservation whose terms the settling instance still holds from its
 * verify: a live escrow reservation of `resourceId` with that cap becomes settling with the amount, the response, a
 * lease and `committed_at`, and the committed result (its receipt) is stored in the same row. Null when the row is not that (absent, another
 * resource, expired, already settling or done, another buyer or cap): nothing is changed and the caller takes the general
 * path. Concurrent commits go to the store together, one statement per group (coalesce).
 */
export function claimAndCommit(store: Store, c: CommitItem["c"], now: number): Promise<Reservation | null> {
  return coalescedFor(store, claimAndCommitMany, (items: CommitItem[]) => claimAndCommitMany(store, items))({ c, now });
}

/**
 * What a committed settle writes, and the row it may write it to, for the commit `x`: a live escrow reservation of its
 * resource, buyer and cap becomes settling with its amount, response, lease, `committed_at` and committed receipt.
 */
const CLAIM_AND_COMMIT = `UPDATE reservation r SET status = 'settling', amount = x.amount, response = x.response,
        lease_until = x.lease_until, updated_at = x.now, committed_at = x.now, receipt = x.receipt,
        settled_at = x.now, expires_at = x.expires_at
       FROM $COMMITS AS x
      WHERE r.idem_key = x.idem_key AND r.buyer = x.buyer AND r.resource_id = x.resource_id AND r.status = 'reserved'
        AND r.valid_before > x.now AND COALESCE((r.payload->>'reservedUntil')::bigint, x.now + 1) > x.now
        AND r.cap = x.cap AND r.scheme = 'service-escrow'`;

/** CLAIM_AND_COMMIT for a group, unpacked from JSON (an idemKey twice in a group is claimed by its first only). */
const CLAIM_AND_COMMIT_GROUP = `${CLAIM_AND_COMMIT.replace(
  "$COMMITS",
  `(SELECT DISTINCT ON (idem_key, buyer) y.*, ($3::json[])[y.n + 1] AS response FROM jsonb_to_recordset($1::jsonb)
               AS y(n int, idem_key text, resource_id text, buyer text, cap numeric, amount numeric, lease_until bigint,
                    now bigint, receipt text, expires_at bigint)
              ORDER BY idem_key, buyer, n)`,
)} AND r.idem_key = ANY($2::text[]) RETURNING ${qualifiedColumns}`;

/** CLAIM_AND_COMMIT for a lone commit, from parameters: unpacking a one-item set costs the store more than the update. */
const CLAIM_AND_COMMIT_ONE = `${CLAIM_AND_COMMIT.replace(
  "$COMMITS",
  `(SELECT $1::text AS idem_key, $2::text AS resource_id, $3::text AS buyer, $4::numeric AS cap, $5::numeric AS amount,
                $6::json AS response, $7::bigint AS lease_until, $8::bigint AS now, $9::text AS receipt,
                $10::bigint AS expires_at)`,
)} RETURNING ${qualifiedColumns}`;

/** One statement for many commits (CLAIM_AND_COMMIT); a lone commit, the common case at low load, takes its own. */
async function claimAndCommitMany(sql: Sql, items: CommitItem[]): Promise<(Reservation | null)[]> {
  const records = items.map(({ c, now }, n) => ({
    n,
    idem_key: c.idemKey,
    resource_id: c.resourceId,
    buyer: c.buyer.toLowerCase(),
    cap: c.cap.toString(),
    amount: c.amount.toString(),
    response: c.response,
    lease_until: c.leaseUntil,
    now,
    receipt: c.receipt,
    expires_at: c.expiresAt,
  }));
  const [only] = records;
  const rows =
    only && records.length === 1
      ? await sql.query<Row>(CLAIM_AND_COMMIT_ONE, [
          only.idem_key,
          only.resource_id,
          only.buyer,
          only.cap,
          only.amount,
          JSON.stringify(only.response),
          only.lease_until,
          only.now,
          only.receipt,
          only.expires_at,
        ])
      : await sql.query<Row>(CLAIM_AND_COMMIT_GROUP, [
          JSON.stringify(records.map(({ response: _, ...record }) => record)),
          records.map((r) => r.idem_key),
          records.map((r) => JSON.stringify(r.response)),
        ]);
  return claimedInOrder(items, rows);
}

/** Moves a reservation to a new status (and records the debit amount, response, tx hash when given). */
export async function updateReservation(
  tx: Sql,
  key: ReservationKey,
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
        amount = COALESCE($3::numeric, amount), response = COALESCE($4::json, response),
        tx_hash = COALESCE($5, tx_hash), lease_until = COALESCE($6, lease_until), updated_at = $7,
        failure = COALESCE($8, failure)
      WHERE idem_key = $1 AND buyer = $9`,
    [
      key.idemKey,
      change.status,
      change.amount?.toString() ?? null,
      change.response ? JSON.stringify(change.response) : null,
      change.txHash ?? null,
      change.leaseUntil ?? null,
      now,
      change.failure?.slice(0, 500) ?? null,
      key.buyer.toLowerCase(),
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
export async function backOffSettlement(sql: Sql, key: ReservationKey, now: number): Promise<void> {
  await sql.query(
    `UPDATE reservation SET attempts = attempts + 1,
        lease_until = $2 + LEAST(power(2, LEAST(attempts, 16))::bigint, $3)
      WHERE idem_key = $1 AND buyer = $4 AND status = 'settling'`,
    [key.idemKey, now, MAX_RETRY_BACKOFF_SECONDS, key.buyer.toLowerCase()],
  );
}

/**
 * Deletes finished reservations (settled, released or expired) whose signed window closed at least
 * `retentionSeconds` before `now` and whose result, if any, has expired (a row holds both, and is kept for the
 * longer), oldest window first, at most `maxRows` in statements of PURGE_BATCH rows that each commit on their own
 * (pass the store, not a transaction: on PGlite other requests run between them); returns how many. A nonce one of
 * them spent stays refused: its `spent_nonce` tombstone, written when its debit was recorded, is never purged (a
 * buyer may sign a new authorization with an old nonce). Without this, every paid call would leave a row (its
 * payload, response and receipt) in the store for good.
 */
export async function purgeReservations(
  sql: Sql,
  now: number,
  retentionSeconds: number,
  maxRows = 10 * PURGE_BATCH,
): Promise<number> {
  let purged = 0;
  while (purged < maxRows) {
    const [row] = await sql.query<{ n: number }>(
      `WITH purged AS (
         DELETE FROM reservation WHERE (idem_key, buyer) IN (
           SELECT idem_key, buyer FROM reservation
            WHERE status IN ('settled', 'released', 'expired') AND valid_before <= $1
              AND (expires_at IS NULL OR expires_at <= $3)
            ORDER BY valid_before LIMIT $2)
         RETURNING 1
       )
       SELECT count(*)::int AS n FROM purged`,
      [now - retentionSeconds, PURGE_BATCH, now],
    );
    const n = row?.n ?? 0;
    purged += n;
    if (n < PURGE_BATCH) break;
  }
  return purged;
}

/**
 * Rows per purge statement. Small on purpose: the statement then walks the `reservation_finished` index in order
 * (about 1 ms per 100 rows on PGlite), where a limit above the planner's estimate (PGlite never gathers statistics)
 * made it sort every eligible row first (83 ms for 1,000 of 180,000). Ten a pass, a pass a second: 1,000 rows/s.
 */
export const PURGE_BATCH = 100;

/**
 * Marks reservations unsettled at their end (the authorization's `validBefore`, or `reservedUntil` when sooner) as
 * expired (no strike). Returns how many.
 */
export async function expireReservations(tx: Sql, now: number): Promise<number> {
  const rows = await tx.query(
    `UPDATE reservation SET status = 'expired', updated_at = $1
      WHERE status = 'reserved' AND (valid_before <= $1 OR (payload->>'reservedUntil')::bigint <= $1)
      RETURNING idem_key`,
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
      WHERE (idem_key, buyer) IN (SELECT idem_key, buyer FROM reservation WHERE status = 'settling'
                                     AND lease_until <= $1 ORDER BY updated_at LIMIT $3 FOR UPDATE SKIP LOCKED)
      RETURNING ${columns}`,
    [now, leaseSeconds, limit],
  );
  return rows.map(toReservation);
}

/** Seconds before its window closes from which a committed debit not mined yet is counted as near expiry. */
export const NEAR_EXPIRY_SECONDS = 30;

/**
 * Debits answered committed whose transaction is not mined yet (their reservations are settling with `committed_at`
 * set), when the oldest was committed (seconds; null when there is none), and how many of them have less than
 * NEAR_EXPIRY_SECONDS of their signed window left at `now` (held debits are sent well before: a debit there is at
 * risk of never being paid): for /metrics.
 */
export async function readCommittedUnmined(
  sql: Sql,
  now: number,
): Promise<{ debits: number; oldestAt: number | null; nearExpiry: number }> {
  const [row] = await sql.query<{ debits: number; oldest: string | number | null; near_expiry: number }>(
    `SELECT count(*)::int AS debits, min(committed_at) AS oldest,
            count(*) FILTER (WHERE (payload->'authorization'->>'validBefore')::numeric < $1)::int AS near_expiry
       FROM reservation WHERE status = 'settling' AND committed_at IS NOT NULL`,
    [now + NEAR_EXPIRY_SECONDS],
  );
  return {
    debits: row?.debits ?? 0,
    oldestAt: row?.oldest === null || row === undefined ? null : Number(row.oldest),
    nearExpiry: row?.near_expiry ?? 0,
  };
}
