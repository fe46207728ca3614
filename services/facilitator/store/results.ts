import { coalescedFor } from "../../store/coalesce.ts";
import type { Sql, Store } from "./createStore.ts";
import type { ReservationKey, StoredPayload, StoredResponse } from "./reservations.ts";
import { keyOf } from "./reservations.ts";

/**
 * A settled call's result as the facilitator records it, in its reservation's row: the receipt (base64, as sent),
 * from which its settle answer is read (settle_answer), and how long it is served.
 */
export type ResultRecord = {
  idemKey: string;
  /** The payer, lowercase: a result is a buyer's and a nonce's, like its reservation. */
  buyer: string;
  resourceId: string;
  receipt: string;
  settledAt: number;
  expiresAt: number;
};

/** A settled call as served by `GET /results/:idemKey` and replayed to a repeated settle. */
export type StoredResult = ResultRecord & {
  /** The reservation's response, which the result shares. */
  response: StoredResponse;
  /** The exact `POST /settle` answer, returned again to a repeated settle. */
  body: Record<string, unknown>;
  /** The payment as reserved; null for a result whose reservation was purged before results moved into reservations. */
  payment: StoredPayload | null;
  /** The hash of the request the payment was reserved for (requestHash.ts); null when the gate sent none. */
  requestHash: string | null;
};

type Row = {
  idem_key: string;
  buyer: string;
  resource_id: string;
  response: StoredResponse | string;
  receipt: string;
  body: Record<string, unknown> | string;
  settled_at: string | number;
  expires_at: string | number;
  payload: StoredPayload | string | null;
  request_hash: string | null;
};

const parse = <T>(value: T | string): T => (typeof value === "string" ? (JSON.parse(value) as T) : value);

/** The results of a group, as `jsonb_to_recordset` reads them. */
const RESULT_RECORD =
  "x(idem_key text, buyer text, receipt text, settled_at bigint, expires_at bigint, tx_hash text, mined_block bigint, answer boolean)";

type Mined = { transaction: string; block: bigint };
/** `answer`: whether the caller reads the stored settle answer back (recordSettlement). */
type ResultItem = { result: ResultRecord; mined?: Mined; answer?: boolean };

/**
 * A group's results, one per key (its first; the answer is read back when any item of the key wants it): a statement
 * that updates a row twice would fail.
 */
function recordsOf(items: ResultItem[]): string {
  const records = new Map<string, Record<string, unknown>>();
  for (const { result, mined, answer = true } of items) {
    const first = records.get(keyOf(result));
    if (first) {
      first.answer ||= answer;
      continue;
    }
    records.set(keyOf(result), {
      idem_key: result.idemKey,
      buyer: result.buyer.toLowerCase(),
      receipt: result.receipt,
      settled_at: result.settledAt,
      expires_at: result.expiresAt,
      tx_hash: mined?.transaction ?? null,
      mined_block: mined?.block.toString() ?? null,
      answer,
    });
  }
  return JSON.stringify([...records.values()]);
}

/** What the statements below return per row: its settle answer, as stored after the statement. */
type StoredRow = { idem_key: string; buyer: string; body: Record<string, unknown> | string | null };

/** Each item's stored answer (null when no reservation holds its key, or its answer was not read back). */
function storedAnswers(items: ResultItem[], rows: StoredRow[]): (Record<string, unknown> | null)[] {
  const stored = new Map(rows.map((row) => [keyOf({ idemKey: row.idem_key, buyer: row.buyer }), parse(row.body)]));
  return items.map(({ result }) => stored.get(keyOf(result)) ?? null);
}

/**
 * Most mined results one statement records. A mined batch lands whole (a hundred debits and more under load), and one
 * statement for all of it held the store 5–25 ms, while every paid call's reservation waited behind it; in groups of
 * this size a reservation made meanwhile runs after the group under way (docs/benchmarks.md, History, 2026-11-30).
 */
export const MINED_GROUP_MAX = 16;

/**
 * Stores a settled result in its reservation, marks the reservation settled with the debit's transaction and block,
 * and writes the nonce's `spent_nonce` tombstone (never purged: the nonce is spent on chain for good). A committed
 * result of the same idemKey is replaced by this confirmed one; any other stored result stays. Returns the stored
 * settle answer: this one, or the one stored before; null when no reservation holds the key, or when `answer` is
 * false: no one waits for it (a committed call's settle was answered when it was committed), and the statement then
 * does not read it back (settle_answer decodes the receipt from base64 and JSON). Results landing together (a mined
 * batch) go to the store in statements of up to MINED_GROUP_MAX (coalesce).
 */
export function recordSettlement(
  store: Store,
  result: ResultRecord,
  mined: Mined,
  answer = true,
): Promise<Record<string, unknown> | null> {
  return coalescedFor(
    store,
    recordSettlements,
    (items: ResultItem[]) => recordSettlements(store, items),
    MINED_GROUP_MAX,
  )({
    result,
    mined,
    answer,
  });
}

/**
 * Whether a row's stored result gives way to a confirmed one: none stored yet, or a committed one (a row holding a
 * committed receipt is settling until its debit is mined; a failed one is released).
 */
const REPLACEABLE = "r.receipt IS NULL OR r.status = 'settling'";

async function recordSettlements(sql: Sql, items: ResultItem[]): Promise<(Record<string, unknown> | null)[]> {
  const [only] = items;
  if (only && items.length === 1) return recordOne(sql, only, SETTLE_ONE);
  const rows = await sql.query<StoredRow>(
    `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS ${RESULT_RECORD}),
     settled AS (
       UPDATE reservation r SET status = 'settled', tx_hash = COALESCE(x.tx_hash, r.tx_hash), mined_block = x.mined_block,
              updated_at = x.settled_at,
              receipt = CASE WHEN ${REPLACEABLE} THEN x.receipt ELSE r.receipt END,
              settled_at = CASE WHEN ${REPLACEABLE} THEN x.settled_at ELSE r.settled_at END,
              expires_at = CASE WHEN ${REPLACEABLE} THEN x.expires_at ELSE r.expires_at END
         FROM x WHERE r.idem_key = ANY($2::text[]) AND r.idem_key = x.idem_key AND r.buyer = x.buyer
       RETURNING r.idem_key, r.buyer, CASE WHEN x.answer THEN settle_answer(r.receipt, r.failure) END AS body
     ), spent AS (
       INSERT INTO spent_nonce (buyer, nonce) SELECT buyer, idem_key FROM x ON CONFLICT DO NOTHING
     )
     SELECT idem_key, buyer, body FROM settled`,
    [recordsOf(items), items.map(({ result }) => result.idemKey)],
  );
  return storedAnswers(items, rows);
}

/**
 * Stores the committed result of a settling reservation in its row (served at once, before the debit is mined) and
 * marks the reservation committed; the reservation stays settling until its debit is mined. Returns the stored
 * settle answer: this one, or the one stored before (a racing duplicate's); null when no reservation holds the key.
 * Concurrent commitments go to the store in one statement (coalesce).
 */
export function recordCommitment(store: Store, result: ResultRecord): Promise<Record<string, unknown> | null> {
  return coalescedFor(store, recordCommitments, (items: ResultItem[]) => recordCommitments(store, items))({ result });
}

async function recordCommitments(sql: Sql, items: ResultItem[]): Promise<(Record<string, unknown> | null)[]> {
  const [only] = items;
  if (only && items.length === 1) return recordOne(sql, only, COMMIT_ONE);
  const rows = await sql.query<StoredRow>(
    `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS ${RESULT_RECORD})
     UPDATE reservation r SET receipt = COALESCE(r.receipt, x.receipt),
            settled_at = COALESCE(r.settled_at, x.settled_at), expires_at = COALESCE(r.expires_at, x.expires_at),
            committed_at = CASE WHEN r.status = 'settling' AND r.committed_at IS NULL THEN x.settled_at
                                ELSE r.committed_at END
       FROM x WHERE r.idem_key = ANY($2::text[]) AND r.idem_key = x.idem_key AND r.buyer = x.buyer
     RETURNING r.idem_key, r.buyer, settle_answer(r.receipt, r.failure) AS body`,
    [recordsOf(items), items.map(({ result }) => result.idemKey)],
  );
  return storedAnswers(items, rows);
}

/**
 * The one-row forms of the two statements above ($1–$5 the result; $6–$7 the mined transaction and block, $8 whether
 * the answer is read back).
 */
const SETTLE_ONE = `WITH settled AS (
       UPDATE reservation r SET status = 'settled', tx_hash = COALESCE($6, r.tx_hash), mined_block = $7,
              updated_at = $4,
              receipt = CASE WHEN ${REPLACEABLE} THEN $3 ELSE r.receipt END,
              settled_at = CASE WHEN ${REPLACEABLE} THEN $4 ELSE r.settled_at END,
              expires_at = CASE WHEN ${REPLACEABLE} THEN $5 ELSE r.expires_at END
        WHERE r.idem_key = $1 AND r.buyer = $2
       RETURNING r.idem_key, r.buyer, CASE WHEN $8::boolean THEN settle_answer(r.receipt, r.failure) END AS body
     ), spent AS (
       INSERT INTO spent_nonce (buyer, nonce) VALUES ($2, $1) ON CONFLICT DO NOTHING
     )
     SELECT idem_key, buyer, body FROM settled`;
const COMMIT_ONE = `UPDATE reservation r SET receipt = COALESCE(r.receipt, $3),
        settled_at = COALESCE(r.settled_at, $4), expires_at = COALESCE(r.expires_at, $5),
        committed_at = CASE WHEN r.status = 'settling' AND r.committed_at IS NULL THEN $4 ELSE r.committed_at END
      WHERE r.idem_key = $1 AND r.buyer = $2
      RETURNING r.idem_key, r.buyer, settle_answer(r.receipt, r.failure) AS body`;

async function recordOne(sql: Sql, item: ResultItem, statement: string): Promise<(Record<string, unknown> | null)[]> {
  const { result, mined, answer = true } = item;
  const rows = await sql.query<StoredRow>(statement, [
    result.idemKey,
    result.buyer.toLowerCase(),
    result.receipt,
    result.settledAt,
    result.expiresAt,
    ...(mined ? [mined.transaction, mined.block.toString(), answer] : []),
  ]);
  return storedAnswers([item], rows);
}

/**
 * Records that a committed debit will never be mined (its window closed, or the chain kept refusing it): the
 * reservation is released with the reason, so that its stored answer reads `status: "failed"` with it
 * (settle_answer) and `GET /results` tells the truth.
 */
export async function failCommitment(sql: Sql, key: ReservationKey, failure: string, now: number): Promise<void> {
  await sql.query(
    "UPDATE reservation SET status = 'released', failure = $2, updated_at = $3 WHERE idem_key = $1 AND buyer = $4",
    [key.idemKey, failure.slice(0, 500), now, key.buyer.toLowerCase()],
  );
}

/** The stored result of `key` while it is retained (`expires_at` after `now`), else null. */
export async function findResult(tx: Sql, key: ReservationKey, now: number): Promise<StoredResult | null> {
  const [row] = await tx.query<Row>(
    `SELECT idem_key, buyer, resource_id, response, receipt, settle_answer(receipt, failure) AS body, settled_at,
            expires_at, payload, request_hash
       FROM reservation WHERE idem_key = $1 AND buyer = $2 AND expires_at > $3`,
    [key.idemKey, key.buyer.toLowerCase(), now],
  );
  if (!row) return null;
  return {
    idemKey: row.idem_key,
    buyer: row.buyer,
    resourceId: row.resource_id,
    response: parse(row.response),
    receipt: row.receipt,
    body: parse(row.body),
    settledAt: Number(row.settled_at),
    expiresAt: Number(row.expires_at),
    payment: row.payload === null ? null : parse(row.payload),
    requestHash: row.request_hash,
  };
}
