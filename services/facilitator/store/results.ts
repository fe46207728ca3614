import { defined } from "../../protocol/defined.ts";
import { coalescedFor } from "../../store/coalesce.ts";
import type { Sql, Store } from "./createStore.ts";
import type { ReservationKey, StoredResponse } from "./reservations.ts";
import { keyOf } from "./reservations.ts";

/** A settled call as served by `GET /results/:idemKey` and replayed to a repeated settle. */
export type StoredResult = {
  idemKey: string;
  /** The payer, lowercase: a result is a buyer's and a nonce's, like its reservation. */
  buyer: string;
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
  buyer: string;
  resource_id: string;
  response: StoredResponse | string;
  receipt: string;
  body: Record<string, unknown> | string;
  settled_at: string | number;
  expires_at: string | number;
};

const parse = <T>(value: T | string): T => (typeof value === "string" ? (JSON.parse(value) as T) : value);

/** The columns of stored results, as `jsonb_to_recordset` reads a group of them. */
const RESULT_RECORD =
  "x(idem_key text, buyer text, resource_id text, response jsonb, receipt text, body jsonb, settled_at bigint, expires_at bigint, tx_hash text, mined_block bigint)";

type Mined = { transaction: string; block: bigint };
type ResultItem = { result: StoredResult; mined?: Mined };

/** A group's rows, one per key (its first): a statement that inserts or updates a row twice would fail. */
function recordsOf(items: ResultItem[]): string {
  const seen = new Set<string>();
  const records = [];
  for (const { result, mined } of items) {
    if (seen.has(keyOf(result))) continue;
    seen.add(keyOf(result));
    records.push({
      idem_key: result.idemKey,
      buyer: result.buyer.toLowerCase(),
      resource_id: result.resourceId,
      response: result.response,
      receipt: result.receipt,
      body: result.body,
      settled_at: result.settledAt,
      expires_at: result.expiresAt,
      tx_hash: mined?.transaction ?? null,
      mined_block: mined?.block.toString() ?? null,
    });
  }
  return JSON.stringify(records);
}

/** Each item's stored answer: the one its statement stored, else the one stored before (a racing duplicate's). */
async function storedBodies(sql: Sql, items: ResultItem[], rows: StoredRow[]): Promise<Record<string, unknown>[]> {
  const stored = new Map(rows.map((row) => [keyOf({ idemKey: row.idem_key, buyer: row.buyer }), parse(row.body)]));
  return Promise.all(
    items.map(
      async ({ result }) =>
        stored.get(keyOf(result)) ?? (await findResult(sql, result, result.settledAt))?.body ?? result.body,
    ),
  );
}

/** What the statements below return per stored row. */
type StoredRow = { idem_key: string; buyer: string; body: Record<string, unknown> | string };

/**
 * Stores a settled result, marks its reservation settled with the debit's transaction and block, and writes the
 * nonce's `spent_nonce` tombstone (never purged: the nonce is spent on chain for good). A committed
 * result of the same idemKey is replaced by this confirmed one; any other stored result stays. Returns the stored
 * settle answer: this one, or the one a racing duplicate stored first. Results landing together (a mined batch)
 * go to the store in one statement (coalesce).
 */
export function recordSettlement(store: Store, result: StoredResult, mined: Mined): Promise<Record<string, unknown>> {
  return coalescedFor(store, recordSettlements, (items: ResultItem[]) => recordSettlements(store, items))({
    result,
    mined,
  });
}

async function recordSettlements(sql: Sql, items: ResultItem[]): Promise<Record<string, unknown>[]> {
  const [only] = items;
  if (only && items.length === 1) return [await recordOne(sql, only, SETTLE_ONE)];
  const rows = await sql.query<StoredRow>(
    `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS ${RESULT_RECORD}),
     stored AS (
       INSERT INTO result (idem_key, buyer, resource_id, response, receipt, body, settled_at, expires_at)
       SELECT idem_key, buyer, resource_id, response, receipt, body, settled_at, expires_at FROM x
       ON CONFLICT (idem_key, buyer) DO UPDATE SET receipt = EXCLUDED.receipt, body = EXCLUDED.body
        WHERE result.body->>'status' = 'committed'
       RETURNING idem_key, buyer, body
     ), settled AS (
       UPDATE reservation r SET status = 'settled', tx_hash = COALESCE(x.tx_hash, r.tx_hash), mined_block = x.mined_block,
              updated_at = x.settled_at
         FROM x WHERE r.idem_key = ANY($2::text[]) AND r.idem_key = x.idem_key AND r.buyer = x.buyer
     ), spent AS (
       INSERT INTO spent_nonce (buyer, nonce) SELECT buyer, idem_key FROM x ON CONFLICT DO NOTHING
     )
     SELECT idem_key, buyer, body FROM stored`,
    [recordsOf(items), items.map(({ result }) => result.idemKey)],
  );
  return storedBodies(sql, items, rows);
}

/**
 * Stores the committed result of a settling reservation (served at once, before the debit is mined) and marks the
 * reservation committed; the reservation stays settling until its debit is mined. Returns the stored settle
 * answer: this one, or the one a racing duplicate stored first. Concurrent commitments go to the store in one
 * statement (coalesce).
 */
export function recordCommitment(store: Store, result: StoredResult): Promise<Record<string, unknown>> {
  return coalescedFor(store, recordCommitments, (items: ResultItem[]) => recordCommitments(store, items))({ result });
}

async function recordCommitments(sql: Sql, items: ResultItem[]): Promise<Record<string, unknown>[]> {
  const [only] = items;
  if (only && items.length === 1) return [await recordOne(sql, only, COMMIT_ONE)];
  const rows = await sql.query<StoredRow>(
    `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS ${RESULT_RECORD}),
     stored AS (
       INSERT INTO result (idem_key, buyer, resource_id, response, receipt, body, settled_at, expires_at)
       SELECT idem_key, buyer, resource_id, response, receipt, body, settled_at, expires_at FROM x
       ON CONFLICT (idem_key, buyer) DO NOTHING RETURNING idem_key, buyer, body
     ), committed AS (
       UPDATE reservation r SET committed_at = x.settled_at
         FROM x WHERE r.idem_key = ANY($2::text[]) AND r.idem_key = x.idem_key AND r.buyer = x.buyer
          AND r.status = 'settling' AND r.committed_at IS NULL
     )
     SELECT idem_key, buyer, body FROM stored`,
    [recordsOf(items), items.map(({ result }) => result.idemKey)],
  );
  return storedBodies(sql, items, rows);
}

/** The one-row forms of the two statements above ($1–$8 the result; $9–$10 the mined transaction and block). */
const SETTLE_ONE = `WITH stored AS (
       INSERT INTO result (idem_key, buyer, resource_id, response, receipt, body, settled_at, expires_at)
       VALUES ($1, $8, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (idem_key, buyer) DO UPDATE SET receipt = EXCLUDED.receipt, body = EXCLUDED.body
        WHERE result.body->>'status' = 'committed'
       RETURNING idem_key, buyer, body
     ), settled AS (
       UPDATE reservation SET status = 'settled', tx_hash = COALESCE($9, tx_hash), mined_block = $10, updated_at = $6
        WHERE idem_key = $1 AND buyer = $8
     ), spent AS (
       INSERT INTO spent_nonce (buyer, nonce) VALUES ($8, $1) ON CONFLICT DO NOTHING
     )
     SELECT idem_key, buyer, body FROM stored`;
const COMMIT_ONE = `WITH stored AS (
       INSERT INTO result (idem_key, buyer, resource_id, response, receipt, body, settled_at, expires_at)
       VALUES ($1, $8, $2, $3, $4, $5, $6, $7) ON CONFLICT (idem_key, buyer) DO NOTHING RETURNING idem_key, buyer, body
     ), committed AS (
       UPDATE reservation SET committed_at = $6
        WHERE idem_key = $1 AND buyer = $8 AND status = 'settling' AND committed_at IS NULL
     )
     SELECT idem_key, buyer, body FROM stored`;

async function recordOne(sql: Sql, item: ResultItem, statement: string): Promise<Record<string, unknown>> {
  const { result, mined } = item;
  const rows = await sql.query<StoredRow>(statement, [
    result.idemKey,
    result.resourceId,
    JSON.stringify(result.response),
    result.receipt,
    JSON.stringify(result.body),
    result.settledAt,
    result.expiresAt,
    result.buyer.toLowerCase(),
    ...(mined ? [mined.transaction, mined.block.toString()] : []),
  ]);
  const [body] = await storedBodies(sql, [item], rows);
  return defined(body, "the stored answer");
}

/**
 * Records that a committed debit will never be mined (its window closed, or the chain kept refusing it): the
 * reservation is released with the reason, and the stored answer says `status: "failed"` with it, so that
 * `GET /results` tells the truth. Both in one statement.
 */
export async function failCommitment(sql: Sql, key: ReservationKey, failure: string, now: number): Promise<void> {
  await sql.query(
    `WITH failed AS (
       UPDATE result SET body = body || jsonb_build_object('status', 'failed', 'failure', $2::text)
        WHERE idem_key = $1 AND buyer = $4 AND body->>'status' = 'committed'
     )
     UPDATE reservation SET status = 'released', failure = $2, updated_at = $3 WHERE idem_key = $1 AND buyer = $4`,
    [key.idemKey, failure.slice(0, 500), now, key.buyer.toLowerCase()],
  );
}

/** The stored result of `key` while it is retained (`expires_at` after `now`), else null. */
export async function findResult(tx: Sql, key: ReservationKey, now: number): Promise<StoredResult | null> {
  const [row] = await tx.query<Row>("SELECT * FROM result WHERE idem_key = $1 AND buyer = $2 AND expires_at > $3", [
    key.idemKey,
    key.buyer.toLowerCase(),
    now,
  ]);
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
  };
}

/** Deletes results past their retention. */
export async function purgeResults(tx: Sql, now: number): Promise<number> {
  return (await tx.query("DELETE FROM result WHERE expires_at <= $1 RETURNING idem_key", [now])).length;
}
