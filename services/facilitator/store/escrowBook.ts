import type { EscrowEvent } from "../escrowBook/escrowEvents.ts";
import type { BookedBuyer } from "../escrowBook/foldEscrowEvents.ts";
import { foldEscrowEvents } from "../escrowBook/foldEscrowEvents.ts";
import type { Sql, Store } from "./createStore.ts";

/**
 * Where the escrow book stands: every event of `escrow` up to `syncedBlock` is applied; current as of `currentAt`;
 * `syncedHash` is that block's hash and `startHash` the hash of the escrow's start block (null when not known yet).
 */
export type BookCursor = {
  escrow: string;
  syncedBlock: bigint;
  currentAt: number;
  syncedHash: string | null;
  startHash: string | null;
};

type BuyerRow = {
  buyer: string;
  balance: string;
  pending_withdrawal: string;
  spend_limit: string;
  period: string;
  window_start: string;
  spent: string;
  pending_limit: string | null;
  pending_period: string | null;
  pending_effective_at: string | null;
  changed_block: string;
};

const buyerColumns =
  "buyer, balance::text AS balance, pending_withdrawal::text AS pending_withdrawal, spend_limit::text AS spend_limit, period::text AS period, window_start::text AS window_start, spent::text AS spent, pending_limit::text AS pending_limit, pending_period::text AS pending_period, pending_effective_at::text AS pending_effective_at, changed_block::text AS changed_block";

function toBooked(row: BuyerRow): BookedBuyer {
  return {
    balance: BigInt(row.balance),
    pendingWithdrawal: BigInt(row.pending_withdrawal),
    spendLimit: {
      limit: BigInt(row.spend_limit),
      period: BigInt(row.period),
      windowStart: BigInt(row.window_start),
      spent: BigInt(row.spent),
      pending:
        row.pending_effective_at === null
          ? null
          : {
              limit: BigInt(row.pending_limit ?? "0"),
              period: BigInt(row.pending_period ?? "0"),
              effectiveAt: BigInt(row.pending_effective_at),
            },
    },
    changedBlock: BigInt(row.changed_block),
  };
}

function toRecord(buyer: string, b: BookedBuyer) {
  const { limit, period, windowStart, spent, pending } = b.spendLimit;
  return {
    buyer,
    balance: b.balance.toString(),
    pending_withdrawal: b.pendingWithdrawal.toString(),
    spend_limit: limit.toString(),
    period: period.toString(),
    window_start: windowStart.toString(),
    spent: spent.toString(),
    pending_limit: pending?.limit.toString() ?? null,
    pending_period: pending?.period.toString() ?? null,
    pending_effective_at: pending?.effectiveAt.toString() ?? null,
    changed_block: b.changedBlock.toString(),
  };
}

/** The book's cursor, or null before it was first started. */
export async function readBookCursor(sql: Sql): Promise<BookCursor | null> {
  const [row] = await sql.query<{
    escrow: string;
    synced_block: string;
    current_at: string | number;
    synced_hash: string | null;
    start_hash: string | null;
  }>("SELECT escrow, synced_block::text AS synced_block, current_at, synced_hash, start_hash FROM escrow_book");
  return row
    ? {
        escrow: row.escrow,
        syncedBlock: BigInt(row.synced_block),
        currentAt: Number(row.current_at),
        syncedHash: row.synced_hash,
        startHash: row.start_hash,
      }
    : null;
}

/**
 * Empties the book and points it at `escrow`, to be replayed from `startBlock` (the escrow's first block, whose hash
 * is `startHash`).
 */
export function resetBook(store: Store, escrow: string, startBlock: bigint, startHash: string): Promise<void> {
  return store.transaction(async (tx) => {
    await tx.query("DELETE FROM buyer_book");
    await tx.query(
      `INSERT INTO escrow_book (escrow, synced_block, current_at, synced_hash, start_hash) VALUES ($1, $2, 0, NULL, $3)
       ON CONFLICT (one) DO UPDATE SET escrow = EXCLUDED.escrow, synced_block = EXCLUDED.synced_block, current_at = 0,
              synced_hash = NULL, start_hash = EXCLUDED.start_hash`,
      [escrow.toLowerCase(), (startBlock - 1n).toString(), startHash.toLowerCase()],
    );
  });
}

/** The booked state of `buyers` (lowercase), as of the book's block. */
export async function bookedBuyers(sql: Sql, buyers: readonly string[]): Promise<Map<string, BookedBuyer>> {
  const rows = await sql.query<BuyerRow>(`SELECT ${buyerColumns} FROM buyer_book WHERE buyer = ANY($1::text[])`, [
    buyers,
  ]);
  return new Map(rows.map((row) => [row.buyer, toBooked(row)]));
}

/** Up to `limit` booked buyers after `after` in address order (from the start when none is), for an audit round. */
export async function nextBookedBuyers(sql: Sql, after: string, limit: number): Promise<string[]> {
  const rows = await sql.query<{ buyer: string }>(
    "SELECT buyer FROM buyer_book WHERE buyer > $1 ORDER BY buyer LIMIT $2",
    [after, limit],
  );
  return rows.map((row) => row.buyer);
}

async function upsertBuyers(tx: Sql, buyers: Map<string, BookedBuyer>, keys: Iterable<string>): Promise<void> {
  const records = [...keys].map((key) => toRecord(key, buyers.get(key) as BookedBuyer));
  if (records.length === 0) return;
  await tx.query(
    `INSERT INTO buyer_book (buyer, balance, pending_withdrawal, spend_limit, period, window_start, spent,
            pending_limit, pending_period, pending_effective_at, changed_block)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(buyer text, balance numeric, pending_withdrawal numeric,
            spend_limit numeric, period numeric, window_start numeric, spent numeric, pending_limit numeric,
            pending_period numeric, pending_effective_at numeric, changed_block bigint)
     ON CONFLICT (buyer) DO UPDATE SET balance = EXCLUDED.balance, pending_withdrawal = EXCLUDED.pending_withdrawal,
            spend_limit = EXCLUDED.spend_limit, period = EXCLUDED.period, window_start = EXCLUDED.window_start,
            spent = EXCLUDED.spent, pending_limit = EXCLUDED.pending_limit, pending_period = EXCLUDED.pending_period,
            pending_effective_at = EXCLUDED.pending_effective_at, changed_block = EXCLUDED.changed_block`,
    [JSON.stringify(records)],
  );
}

/**
 * A page of the escrow's history: its blocks, the hash of its last block, its events in chain order, and when `to` was
 * as far as the book follows (the head less its margin), if it was.
 */
export type BookPage = {
  from: bigint;
  to: bigint;
  toHash: string;
  events: readonly EscrowEvent[];
  currentAt: number | null;
};

/**
 * Applies a page to the book if the book stands right before it (another instance sharing the store may have
 * applied it first: then nothing is written and the answer is false). The buyers' new states, a `spent_nonce`
 * tombstone for every debit and the cursor are written in one transaction; a page without events is one statement.
 */
export async function advanceBook(store: Store, page: BookPage): Promise<boolean> {
  const cursor = [page.to.toString(), page.currentAt, (page.from - 1n).toString(), page.toHash.toLowerCase()];
  const moveCursor = `UPDATE escrow_book SET synced_block = $1, current_at = COALESCE($2, current_at), synced_hash = $4
                       WHERE synced_block = $3 RETURNING 1`;
  if (page.events.length === 0) return (await store.query(moveCursor, cursor)).length === 1;
  return store.transaction(async (tx) => {
    const [at] = await tx.query<{ synced_block: string }>(
      "SELECT synced_block::text AS synced_block FROM escrow_book FOR UPDATE",
    );
    if (at?.synced_block !== (page.from - 1n).toString()) return false;
    const touched = [...new Set(page.events.map((e) => e.buyer.toLowerCase()))];
    const buyers = await bookedBuyers(tx, touched);
    await upsertBuyers(tx, buyers, foldEscrowEvents(buyers, page.events));
    const spent = page.events.flatMap((e) => (e.kind === "debited" ? [{ b: e.buyer.toLowerCase(), n: e.nonce }] : []));
    if (spent.length > 0)
      await tx.query(
        `INSERT INTO spent_nonce (buyer, nonce) SELECT b, n FROM jsonb_to_recordset($1::jsonb) AS x(b text, n text)
         ON CONFLICT DO NOTHING`,
        [JSON.stringify(spent)],
      );
    return (await tx.query(moveCursor, cursor)).length === 1;
  });
}

/**
 * Replaces a buyer's booked state with `state`, read on chain at the book's block `atBlock`, if the book still stands
 * there; false when it has moved on (the caller reads again).
 */
export function correctBookedBuyer(store: Store, buyer: string, state: BookedBuyer, atBlock: bigint): Promise<boolean> {
  return store.transaction(async (tx) => {
    const [at] = await tx.query<{ synced_block: string }>(
      "SELECT synced_block::text AS synced_block FROM escrow_book FOR UPDATE",
    );
    if (at?.synced_block !== atBlock.toString()) return false;
    await upsertBuyers(tx, new Map([[buyer, state]]), [buyer]);
    return true;
  });
}

/**
 * Records the anchors of a book kept before it recorded them (facilitator migration 15), if it still stands at `block`:
 * the hash of that block and of the escrow's start block.
 */
export async function adoptAnchors(
  sql: Sql,
  block: bigint,
  anchors: { syncedHash: string; startHash: string },
): Promise<boolean> {
  const rows = await sql.query(
    "UPDATE escrow_book SET synced_hash = $1, start_hash = $2 WHERE synced_block = $3 RETURNING 1",
    [anchors.syncedHash, anchors.startHash, block.toString()],
  );
  return rows.length === 1;
}

/** Records that the book, standing at `block`, was the chain's head at `now`. */
export async function markBookCurrent(sql: Sql, block: bigint, now: number): Promise<void> {
  await sql.query("UPDATE escrow_book SET current_at = $1 WHERE synced_block = $2", [now, block.toString()]);
}
