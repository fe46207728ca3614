/** Schema versions 1 to 3, as applied; later versions are appended to MIGRATIONS below. */
const MIGRATIONS_1_TO_3 = [
  `CREATE TABLE reservation (
     idem_key     TEXT PRIMARY KEY,
     scheme       TEXT NOT NULL,
     buyer        TEXT NOT NULL,
     resource_id  TEXT NOT NULL,
     cap          NUMERIC(78,0) NOT NULL,
     payload      JSONB NOT NULL,
     valid_before BIGINT NOT NULL,
     status       TEXT NOT NULL CHECK (status IN ('reserved','settling','settled','released','expired')),
     amount       NUMERIC(78,0),
     response     JSONB,
     tx_hash      TEXT,
     lease_until  BIGINT NOT NULL DEFAULT 0,
     created_at   BIGINT NOT NULL,
     updated_at   BIGINT NOT NULL
   );
   CREATE INDEX reservation_live ON reservation (buyer) WHERE status IN ('reserved','settling');
   CREATE INDEX reservation_settling ON reservation (status, lease_until) WHERE status = 'settling';
   CREATE TABLE result (
     idem_key    TEXT PRIMARY KEY,
     resource_id TEXT NOT NULL,
     response    JSONB NOT NULL,
     receipt     TEXT NOT NULL,
     body        JSONB NOT NULL,
     settled_at  BIGINT NOT NULL,
     expires_at  BIGINT NOT NULL
   );
   CREATE INDEX result_expiry ON result (expires_at);
   CREATE TABLE strike (
     idem_key    TEXT PRIMARY KEY,
     resource_id TEXT NOT NULL,
     reason      TEXT NOT NULL,
     status      TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued','recorded','failed')),
     attempts    INTEGER NOT NULL DEFAULT 0,
     tx_hash     TEXT,
     last_error  TEXT,
     lease_until BIGINT NOT NULL DEFAULT 0,
     created_at  BIGINT NOT NULL
   );`,
  // 2: reserving is one statement. A verify reads the chain first, at a known block, then calls reserve_payment,
  // which takes the buyer's lock and counts as held: live reservations, debits settling, and debits mined at or
  // after that block (the chain state read may not reflect them yet). Counting by block, not by the order of the
  // reads, is what lets the chain read happen outside the lock.
  `ALTER TABLE reservation ADD COLUMN mined_block BIGINT;
   CREATE INDEX reservation_mined ON reservation (buyer, mined_block) WHERE status = 'settled';
   CREATE FUNCTION reserve_payment(
     p_idem_key TEXT, p_scheme TEXT, p_buyer TEXT, p_resource_id TEXT, p_cap NUMERIC, p_payload JSONB,
     p_valid_before BIGINT, p_now BIGINT, p_available NUMERIC, p_room NUMERIC, p_at_block BIGINT
   ) RETURNS TABLE (outcome TEXT, held NUMERIC) LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
   DECLARE
     v_held NUMERIC;
   BEGIN
     -- Held until the statement's transaction ends; every query below takes a fresh snapshot (VOLATILE), so it
     -- sees what the lock's previous holder committed.
     PERFORM pg_advisory_xact_lock(hashtextextended('buyer:' || p_buyer, 0));
     IF EXISTS (SELECT 1 FROM reservation r WHERE r.idem_key = p_idem_key) THEN
       RETURN QUERY SELECT 'nonce_used'::TEXT, NULL::NUMERIC;
       RETURN;
     END IF;
     SELECT COALESCE(SUM(r.cap), 0) INTO v_held FROM reservation r
      WHERE r.buyer = p_buyer AND r.scheme = p_scheme
        AND ((r.status IN ('reserved', 'settling') AND (r.status = 'settling' OR r.valid_before > p_now))
             OR (r.status = 'settled' AND r.mined_block >= p_at_block));
     IF p_available - v_held < p_cap THEN
       RETURN QUERY SELECT 'insufficient_balance'::TEXT, v_held;
       RETURN;
     END IF;
     IF p_room IS NOT NULL AND v_held + p_cap > p_room THEN
       RETURN QUERY SELECT 'over_cap'::TEXT, v_held;
       RETURN;
     END IF;
     INSERT INTO reservation (idem_key, scheme, buyer, resource_id, cap, payload, valid_before, status, created_at, updated_at)
     VALUES (p_idem_key, p_scheme, p_buyer, p_resource_id, p_cap, p_payload, p_valid_before, 'reserved', p_now, p_now)
     ON CONFLICT (idem_key) DO NOTHING;
     IF NOT FOUND THEN
       RETURN QUERY SELECT 'nonce_used'::TEXT, NULL::NUMERIC;
       RETURN;
     END IF;
     RETURN QUERY SELECT 'reserved'::TEXT, v_held;
   END $$;`,
  // 3: why a reservation was given up (the escrow's or token's decoded revert), and how many times its settlement
  // was attempted without an answer from the chain (the retrier backs off exponentially on it).
  `ALTER TABLE reservation ADD COLUMN failure TEXT;
   ALTER TABLE reservation ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;`,
];

/**
 * 4: each reservation remembers the block verify read the chain at (`from_block`): a debit of it can only be mined at or
 * after that block, so the search for an earlier attempt's `Debited` log starts there, never at genesis (public RPCs
 * cap `eth_getLogs` ranges). The same reserve_payment, now also storing p_at_block.
 */
function migration4(): string {
  const v2 = MIGRATIONS_1_TO_3[1] ?? "";
  const next = v2
    .slice(v2.indexOf("CREATE FUNCTION reserve_payment"))
    .replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION")
    .replace("status, created_at, updated_at)", "status, created_at, updated_at, from_block)")
    .replace("'reserved', p_now, p_now)", "'reserved', p_now, p_now, p_at_block)");
  if (!next.startsWith("CREATE OR REPLACE FUNCTION") || !next.includes("p_now, p_now, p_at_block)"))
    throw new Error("migration 4 could not be derived from migration 2's reserve_payment");
  return `ALTER TABLE reservation ADD COLUMN from_block BIGINT;\n   ${next}`;
}

/**
 * 9: reservations and results are a buyer's and a nonce's, bound to the request they were made for, and a nonce a
 * debit of this store spent is never reserved again.
 * - Keyed by (idem_key, buyer): the escrow spends a nonce per buyer, and keyed by the nonce alone a buyer who reserved
 *   another buyer's nonce first (nonces are public and guessable) blocked it.
 * - `request_hash`: the hash of the request a reservation was made for (requestHash.ts), given by the gate; a replay
 *   of the same payment for another request is refused by the gate, never answered with this one's response.
 * - `spent_nonce`: a tombstone per (buyer, nonce) that a debit recorded here spent, written in the statement that
 *   records the debit and never purged (finished reservations are, a day after their window), so that a nonce read
 *   from no chain state (a shared buyer snapshot) is still refused. Backfilled from the settled reservations kept.
 * - `nonce_book.complete`: whether the tombstones cover every debit this store ever recorded, which holds only for a
 *   store created with them (every earlier migration applied in this same transaction); an older store may have
 *   purged the rows of earlier debits, and its verifies then read every nonce on chain (createFacilitator).
 * - reserve_payment as in migration 8, keyed by (idem_key, buyer), refusing a tombstoned nonce and storing the request
 *   hash; commit_settlement as in migration 6, storing the result under (idem_key, buyer).
 */
const MIGRATION_9 = `ALTER TABLE reservation DROP CONSTRAINT reservation_pkey;
   ALTER TABLE reservation ADD PRIMARY KEY (idem_key, buyer);
   ALTER TABLE reservation ADD COLUMN request_hash TEXT;
   ALTER TABLE result ADD COLUMN buyer TEXT;
   UPDATE result SET buyer = COALESCE(
     (SELECT r.buyer FROM reservation r WHERE r.idem_key = result.idem_key LIMIT 1), lower(body->>'payer'), '');
   ALTER TABLE result ALTER COLUMN buyer SET NOT NULL;
   ALTER TABLE result DROP CONSTRAINT result_pkey;
   ALTER TABLE result ADD PRIMARY KEY (idem_key, buyer);
   CREATE TABLE spent_nonce (buyer TEXT NOT NULL, nonce TEXT NOT NULL, PRIMARY KEY (buyer, nonce));
   INSERT INTO spent_nonce (buyer, nonce) SELECT buyer, idem_key FROM reservation WHERE status = 'settled';
   CREATE TABLE nonce_book (complete BOOLEAN NOT NULL);
   INSERT INTO nonce_book (complete) SELECT NOT EXISTS (SELECT 1 FROM migration WHERE applied_at < now());
   DROP FUNCTION reserve_payment(TEXT, TEXT, TEXT, TEXT, NUMERIC, JSONB, BIGINT, BIGINT, NUMERIC, NUMERIC, BIGINT);
   CREATE FUNCTION reserve_payment(
     p_idem_key TEXT, p_scheme TEXT, p_buyer TEXT, p_resource_id TEXT, p_cap NUMERIC, p_payload JSONB,
     p_valid_before BIGINT, p_now BIGINT, p_available NUMERIC, p_room NUMERIC, p_at_block BIGINT, p_request_hash TEXT
   ) RETURNS TABLE (outcome TEXT, held NUMERIC) LANGUAGE plpgsql VOLATILE
     SET search_path FROM CURRENT SET enable_bitmapscan = off AS $$
   DECLARE
     v_live NUMERIC;
     v_mined NUMERIC;
     v_held NUMERIC;
   BEGIN
     PERFORM pg_advisory_xact_lock(hashtextextended('buyer:' || p_buyer, 0));
     IF EXISTS (SELECT 1 FROM reservation r WHERE r.idem_key = p_idem_key AND r.buyer = p_buyer)
        OR EXISTS (SELECT 1 FROM spent_nonce s WHERE s.buyer = p_buyer AND s.nonce = p_idem_key) THEN
       RETURN QUERY SELECT 'nonce_used'::TEXT, NULL::NUMERIC;
       RETURN;
     END IF;
     SELECT COALESCE(SUM(CASE WHEN r.status = 'settling' THEN COALESCE(r.amount, r.cap) ELSE r.cap END), 0)
       INTO v_live FROM reservation r
      WHERE r.buyer = p_buyer AND r.scheme = p_scheme AND r.status IN ('reserved', 'settling')
        AND (r.status = 'settling' OR r.valid_before > p_now);
     SELECT COALESCE(SUM(COALESCE(r.amount, r.cap)), 0) INTO v_mined FROM reservation r
      WHERE r.buyer = p_buyer AND r.scheme = p_scheme AND r.status = 'settled' AND r.mined_block >= p_at_block;
     v_held := v_live + v_mined;
     IF p_available - v_held < p_cap THEN
       RETURN QUERY SELECT 'insufficient_balance'::TEXT, v_held;
       RETURN;
     END IF;
     IF p_room IS NOT NULL AND v_held + p_cap > p_room THEN
       RETURN QUERY SELECT 'over_cap'::TEXT, v_held;
       RETURN;
     END IF;
     INSERT INTO reservation (idem_key, scheme, buyer, resource_id, cap, payload, valid_before, status, created_at,
                              updated_at, from_block, request_hash)
     VALUES (p_idem_key, p_scheme, p_buyer, p_resource_id, p_cap, p_payload, p_valid_before, 'reserved', p_now, p_now,
             p_at_block, p_request_hash)
     ON CONFLICT (idem_key, buyer) DO NOTHING;
     IF NOT FOUND THEN
       RETURN QUERY SELECT 'nonce_used'::TEXT, NULL::NUMERIC;
       RETURN;
     END IF;
     RETURN QUERY SELECT 'reserved'::TEXT, v_held;
   END $$;
   CREATE OR REPLACE FUNCTION commit_settlement(
     p_idem_key TEXT, p_resource_id TEXT, p_buyer TEXT, p_cap NUMERIC, p_amount NUMERIC, p_response JSONB,
     p_lease_until BIGINT, p_now BIGINT, p_receipt TEXT, p_body JSONB, p_expires_at BIGINT
   ) RETURNS SETOF reservation LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
   BEGIN
     RETURN QUERY UPDATE reservation r SET status = 'settling', amount = p_amount, response = p_response,
            lease_until = p_lease_until, updated_at = p_now, committed_at = p_now
      WHERE r.idem_key = p_idem_key AND r.buyer = p_buyer AND r.resource_id = p_resource_id
        AND r.status = 'reserved' AND r.valid_before > p_now AND r.cap = p_cap AND r.scheme = 'service-escrow'
     RETURNING r.*;
     IF FOUND THEN
       INSERT INTO result (idem_key, buyer, resource_id, response, receipt, body, settled_at, expires_at)
       VALUES (p_idem_key, p_buyer, p_resource_id, p_response, p_receipt, p_body, p_now, p_expires_at)
       ON CONFLICT (idem_key, buyer) DO NOTHING;
     END IF;
   END $$;`;

/**
 * 11: the escrow book (escrowBook/). `escrow_book` is the follower's cursor: every escrow event up to and including
 * `synced_block` is applied to `buyer_book`, and `current_at` is when that block was last seen to be the chain's head.
 * `reserve_call` reserves a payment in one statement: when it is given no chain state (`p_at_block` null), it reads
 * the buyer's state from the book (balance less pending withdrawal; the spend limit's room: the limit less what its
 * window spent unless the period has passed, or a pending tightening's if it may be applied before `p_valid_before`
 * and leaves less), and refuses with `book_behind` when the book has not been current for `p_max_lag` seconds; then it
 * is reserve_payment (migration 9), counting as held the debits mined after the book's block.
 */
const MIGRATION_11 = `CREATE TABLE escrow_book (
     one          BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
     escrow       TEXT NOT NULL,
     synced_block BIGINT NOT NULL,
     current_at   BIGINT NOT NULL
   );
   CREATE TABLE buyer_book (
     buyer                TEXT PRIMARY KEY,
     balance              NUMERIC(78,0) NOT NULL,
     pending_withdrawal   NUMERIC(78,0) NOT NULL,
     spend_limit          NUMERIC(78,0) NOT NULL,
     period               NUMERIC(78,0) NOT NULL,
     window_start         NUMERIC(78,0) NOT NULL,
     spent                NUMERIC(78,0) NOT NULL,
     pending_limit        NUMERIC(78,0),
     pending_period       NUMERIC(78,0),
     pending_effective_at NUMERIC(78,0),
     changed_block        BIGINT NOT NULL
   );
   CREATE FUNCTION reserve_call(
     p_idem_key TEXT, p_scheme TEXT, p_buyer TEXT, p_resource_id TEXT, p_cap NUMERIC, p_payload JSONB,
     p_valid_before BIGINT, p_now BIGINT, p_available NUMERIC, p_room NUMERIC, p_at_block BIGINT, p_request_hash TEXT,
     p_max_lag BIGINT
   ) RETURNS TABLE (outcome TEXT, held NUMERIC, available NUMERIC) LANGUAGE plpgsql VOLATILE
     SET search_path FROM CURRENT AS $$
   DECLARE
     v_book RECORD;
     v_available NUMERIC := p_available;
     v_room NUMERIC := p_room;
     v_at_block BIGINT := p_at_block;
     v_due NUMERIC;
   BEGIN
     IF p_at_block IS NULL THEN
       -- One snapshot of the cursor and the buyer's row: the follower changes both in one transaction.
       SELECT e.synced_block, e.current_at, b.balance, b.pending_withdrawal, b.spend_limit, b.period, b.window_start,
              b.spent, b.pending_limit, b.pending_period, b.pending_effective_at
         INTO v_book FROM escrow_book e LEFT JOIN buyer_book b ON b.buyer = p_buyer;
       IF NOT FOUND OR v_book.current_at < p_now - p_max_lag THEN
         RETURN QUERY SELECT 'book_behind'::TEXT, NULL::NUMERIC, NULL::NUMERIC;
         RETURN;
       END IF;
       v_at_block := v_book.synced_block + 1;
       v_available := COALESCE(v_book.balance, 0) - COALESCE(v_book.pending_withdrawal, 0);
       v_room := NULL;
       IF COALESCE(v_book.spend_limit, 0) <> 0 THEN
         v_room := v_book.spend_limit
                   - CASE WHEN p_now >= v_book.window_start + v_book.period THEN 0 ELSE v_book.spent END;
       END IF;
       IF v_book.pending_effective_at IS NOT NULL AND v_book.pending_effective_at < p_valid_before
          AND v_book.pending_limit <> 0 THEN
         v_due := v_book.pending_limit
                  - CASE WHEN p_now >= v_book.window_start + v_book.pending_period THEN 0 ELSE v_book.spent END;
         IF v_room IS NULL OR v_due < v_room THEN v_room := v_due; END IF;
       END IF;
     END IF;
     RETURN QUERY SELECT r.outcome, r.held, v_available FROM reserve_payment(p_idem_key, p_scheme, p_buyer,
       p_resource_id, p_cap, p_payload, p_valid_before, p_now, v_available, v_room, v_at_block, p_request_hash) r;
   END $$;`;

/**
 * 12: one row per paid call, its response and receipt stored once. A paid call had two rows, a reservation and a result,
 * which held the response twice (reservation.response, result.response) and the receipt three times (result.receipt,
 * `receipt` inside result.body, and the receipt's own fields, decoded, beside it in result.body).
 * - The result is the reservation's: `receipt` (base64, as sent), `settled_at` and `expires_at` (null: none yet), and
 *   its response is the reservation's `response`.
 * - The settle answer is derived from the receipt on reading (`settle_answer`), as jsonb, as it was stored: the
 *   receipt's fields but `scheme`, `payTo` and `settledAt`, and the receipt itself (settleBody in
 *   commitSettlement.ts, which a test holds it to); a committed receipt of a reservation given up with a `failure`
 *   reads `status: "failed"` and the failure (failCommitment).
 * - A row is kept until both its reservation and its result are past retention (purgeReservations).
 * - A result whose reservation was purged before this migration is kept in a row of its own, with no payload: no
 *   route finds it as a reservation (findReservation, payersOf), as before.
 * - commit_settlement as in migration 9, storing the committed receipt in the claimed row.
 */
export const ONE_ROW_PER_CALL = `ALTER TABLE reservation ADD COLUMN receipt TEXT;
   ALTER TABLE reservation ADD COLUMN settled_at BIGINT;
   ALTER TABLE reservation ADD COLUMN expires_at BIGINT;
   ALTER TABLE reservation ALTER COLUMN payload DROP NOT NULL;
   UPDATE reservation r SET receipt = x.receipt, settled_at = x.settled_at, expires_at = x.expires_at,
          response = x.response,
          failure = CASE WHEN x.body->>'status' = 'failed' THEN x.body->>'failure' ELSE r.failure END
     FROM result x WHERE r.idem_key = x.idem_key AND r.buyer = x.buyer;
   INSERT INTO reservation (idem_key, scheme, buyer, resource_id, cap, payload, valid_before, status, amount, response,
                            failure, created_at, updated_at, receipt, settled_at, expires_at)
   SELECT x.idem_key, convert_from(decode(x.receipt, 'base64'), 'UTF8')::jsonb->>'scheme', x.buyer, x.resource_id,
          (x.body->>'amount')::numeric, NULL, 0,
          CASE WHEN x.body->>'status' = 'failed' THEN 'released' ELSE 'settled' END, (x.body->>'amount')::numeric,
          x.response, x.body->>'failure', x.settled_at, x.settled_at, x.receipt, x.settled_at, x.expires_at
     FROM result x
    WHERE NOT EXISTS (SELECT 1 FROM reservation r WHERE r.idem_key = x.idem_key AND r.buyer = x.buyer);
   DROP TABLE result;
   CREATE FUNCTION settle_answer(p_receipt TEXT, p_failure TEXT) RETURNS JSONB LANGUAGE sql IMMUTABLE AS $$
     SELECT CASE WHEN p_failure IS NOT NULL AND d.receipt->>'status' = 'committed'
                 THEN d.answer || jsonb_build_object('status', 'failed', 'failure', p_failure)
                 ELSE d.answer END
       FROM (SELECT r.receipt, (r.receipt - 'scheme' - 'payTo' - 'settledAt') || jsonb_build_object('receipt', p_receipt)
                    AS answer
               FROM (SELECT convert_from(decode(p_receipt, 'base64'), 'UTF8')::jsonb AS receipt) r) d
   $$;
   DROP FUNCTION commit_settlement(TEXT, TEXT, TEXT, NUMERIC, NUMERIC, JSONB, BIGINT, BIGINT, TEXT, JSONB, BIGINT);
   CREATE FUNCTION commit_settlement(
     p_idem_key TEXT, p_resource_id TEXT, p_buyer TEXT, p_cap NUMERIC, p_amount NUMERIC, p_response JSONB,
     p_lease_until BIGINT, p_now BIGINT, p_receipt TEXT, p_expires_at BIGINT
   ) RETURNS SETOF reservation LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
   BEGIN
     RETURN QUERY UPDATE reservation r SET status = 'settling', amount = p_amount, response = p_response,
            lease_until = p_lease_until, updated_at = p_now, committed_at = p_now, receipt = p_receipt,
            settled_at = p_now, expires_at = p_expires_at
      WHERE r.idem_key = p_idem_key AND r.buyer = p_buyer AND r.resource_id = p_resource_id
        AND r.status = 'reserved' AND r.valid_before > p_now AND r.cap = p_cap AND r.scheme = 'service-escrow'
     RETURNING r.*;
   END $$;`;

/**
 * 13: a group of reservations in one function call, `reserve_calls`, which replaces `reserve_call` and
 * `reserve_payment` (each item's outcome is theirs); and commits as one UPDATE in claimAndCommit, which replaces
 * `commit_settlement`. Calling reserve_call once per item of a group ran six statements per item inside PL/pgSQL (the
 * book, two nonce checks, two sums, the insert), each with its own executor start: a group now runs one query for
 * every item's book row, nonces and sums, decides in order, and inserts the reserved ones in one statement (figures in
 * docs/benchmarks.md, "Store").
 * - Locks: every buyer's lock first, in byte order of the buyer (instances sharing a database never deadlock), then
 *   the reads, each in a snapshot taken after the locks (VOLATILE).
 * - In order: items go by buyer, then by their place in the group; an item sees the reservations made before it
 *   in the group (held at their cap while their window is open at the item's `now`, and their nonces taken), as it
 *   saw them when each item was a statement of its own. `i` is an item's index in `p_items`.
 * - Outcome per item (`i`), checked in this order: `book_behind` (an item given no chain state, `at_block` null, when
 *   the book has not been current for `max_lag` seconds), `nonce_used`, `insufficient_balance`, `over_cap`,
 *   `reserved`; `held` is what the buyer held before the item, `available` the balance it was checked against.
 * - A nonce taken under its buyer's lock cannot conflict; should it, the statement fails and the caller runs each item
 *   alone (coalesce).
 * - Subqueries, not joins: a join's plan for an unknown number of items hashed whole tables (every reservation, every
 *   buyer) on each call.
 */
const GROUPED_RESERVE_AND_COMMIT = `CREATE FUNCTION reserve_calls(p_items JSONB)
   RETURNS TABLE (i INT, outcome TEXT, held NUMERIC, available NUMERIC) LANGUAGE plpgsql VOLATILE
     SET search_path FROM CURRENT SET enable_bitmapscan = off AS $$
   DECLARE
     x RECORD;
     v_buyer TEXT := NULL;
     v_keys TEXT[];
     v_schemes TEXT[];
     v_caps NUMERIC[];
     v_ends BIGINT[];
     v_available NUMERIC;
     v_room NUMERIC;
     v_due NUMERIC;
     v_held NUMERIC;
     v_outcome TEXT;
     v_at BIGINT;
     v_reserved INT[] := '{}';
     v_froms BIGINT[] := '{}';
     v_count INT;
   BEGIN
     IF jsonb_array_length(p_items) = 1 THEN
       PERFORM pg_advisory_xact_lock(hashtextextended('buyer:' || (p_items->0->>'buyer'), 0));
     ELSE
       PERFORM pg_advisory_xact_lock(hashtextextended('buyer:' || b.buyer, 0))
          FROM (SELECT DISTINCT e->>'buyer' COLLATE "C" AS buyer FROM jsonb_array_elements(p_items) e ORDER BY 1) b;
     END IF;
     FOR x IN
       SELECT t.i, t.idem_key, t.scheme, t.buyer, t.cap, t.valid_before, t.now, t.available, t.room, t.at_block,
              t.max_lag, e.synced_block, e.current_at, bb.balance, bb.pending_withdrawal, bb.spend_limit, bb.period,
              bb.window_start, bb.spent, bb.pending_limit, bb.pending_period, bb.pending_effective_at,
              (SELECT 1 FROM reservation r WHERE r.idem_key = t.idem_key AND r.buyer = t.buyer LIMIT 1) IS NOT NULL
                OR (SELECT 1 FROM spent_nonce s WHERE s.buyer = t.buyer AND s.nonce = t.idem_key LIMIT 1) IS NOT NULL
                AS used,
              (SELECT COALESCE(SUM(CASE WHEN r.status = 'settling' THEN COALESCE(r.amount, r.cap) ELSE r.cap END), 0)
                 FROM reservation r
                WHERE r.buyer = t.buyer AND r.scheme = t.scheme AND r.status IN ('reserved', 'settling')
                  AND (r.status = 'settling' OR r.valid_before > t.now)) AS live,
              (SELECT COALESCE(SUM(COALESCE(r.amount, r.cap)), 0) FROM reservation r
                WHERE r.buyer = t.buyer AND r.scheme = t.scheme AND r.status = 'settled'
                  AND r.mined_block >= COALESCE(t.at_block, e.synced_block + 1)) AS mined
         FROM jsonb_to_recordset(p_items) AS t(i int, idem_key text, scheme text, buyer text, cap numeric,
                valid_before bigint, now bigint, available numeric, room numeric, at_block bigint, max_lag bigint)
         LEFT JOIN escrow_book e ON t.at_block IS NULL
         LEFT JOIN LATERAL (SELECT * FROM buyer_book b WHERE t.at_block IS NULL AND b.buyer = t.buyer LIMIT 1) bb ON TRUE
        ORDER BY t.buyer COLLATE "C", t.i
     LOOP
       IF v_buyer IS DISTINCT FROM x.buyer THEN
         v_buyer := x.buyer;
         v_keys := '{}';
         v_schemes := '{}';
         v_caps := '{}';
         v_ends := '{}';
       END IF;
       v_available := x.available;
       v_room := x.room;
       v_at := COALESCE(x.at_block, x.synced_block + 1);
       IF x.at_block IS NULL THEN
         IF x.current_at IS NULL OR x.current_at < x.now - x.max_lag THEN
           i := x.i; outcome := 'book_behind'; held := NULL; available := NULL;
           RETURN NEXT;
           CONTINUE;
         END IF;
         v_available := COALESCE(x.balance, 0) - COALESCE(x.pending_withdrawal, 0);
         v_room := NULL;
         IF COALESCE(x.spend_limit, 0) <> 0 THEN
           v_room := x.spend_limit - CASE WHEN x.now >= x.window_start + x.period THEN 0 ELSE x.spent END;
         END IF;
         IF x.pending_effective_at IS NOT NULL AND x.pending_effective_at < x.valid_before AND x.pending_limit <> 0 THEN
           v_due := x.pending_limit - CASE WHEN x.now >= x.window_start + x.pending_period THEN 0 ELSE x.spent END;
           IF v_room IS NULL OR v_due < v_room THEN v_room := v_due; END IF;
         END IF;
       END IF;
       i := x.i;
       IF x.used OR x.idem_key = ANY(v_keys) THEN
         outcome := 'nonce_used'; held := NULL; available := NULL;
         RETURN NEXT;
         CONTINUE;
       END IF;
       v_held := x.live + x.mined;
       FOR k IN 1 .. COALESCE(array_length(v_keys, 1), 0) LOOP
         IF v_schemes[k] = x.scheme AND v_ends[k] > x.now THEN v_held := v_held + v_caps[k]; END IF;
       END LOOP;
       IF v_available - v_held < x.cap THEN
         v_outcome := 'insufficient_balance';
       ELSIF v_room IS NOT NULL AND v_held + x.cap > v_room THEN
         v_outcome := 'over_cap';
       ELSE
         v_outcome := 'reserved';
         v_keys := v_keys || x.idem_key;
         v_schemes := v_schemes || x.scheme;
         v_caps := v_caps || x.cap;
         v_ends := v_ends || x.valid_before;
         v_reserved := v_reserved || x.i;
         v_froms := v_froms || v_at;
       END IF;
       outcome := v_outcome; held := v_held; available := v_available;
       RETURN NEXT;
     END LOOP;
     IF cardinality(v_reserved) > 0 THEN
       INSERT INTO reservation (idem_key, scheme, buyer, resource_id, cap, payload, valid_before, status, created_at,
                                updated_at, from_block, request_hash)
       SELECT e->>'idem_key', e->>'scheme', e->>'buyer', e->>'resource_id', (e->>'cap')::numeric, e->'payload',
              (e->>'valid_before')::bigint, 'reserved', (e->>'now')::bigint, (e->>'now')::bigint, a.from_block,
              e->>'request_hash'
         FROM unnest(v_reserved, v_froms) AS a(i, from_block) CROSS JOIN LATERAL (SELECT p_items->a.i AS e) AS item
       ON CONFLICT (idem_key, buyer) DO NOTHING;
       GET DIAGNOSTICS v_count = ROW_COUNT;
       IF v_count <> cardinality(v_reserved) THEN
         RAISE EXCEPTION 'reserve_calls: a nonce was taken under its buyer''s lock';
       END IF;
     END IF;
   END $$;
   DROP FUNCTION reserve_call(TEXT, TEXT, TEXT, TEXT, NUMERIC, JSONB, BIGINT, BIGINT, NUMERIC, NUMERIC, BIGINT, TEXT,
                              BIGINT);
   DROP FUNCTION reserve_payment(TEXT, TEXT, TEXT, TEXT, NUMERIC, JSONB, BIGINT, BIGINT, NUMERIC, NUMERIC, BIGINT, TEXT);
   DROP FUNCTION commit_settlement(TEXT, TEXT, TEXT, NUMERIC, NUMERIC, JSONB, BIGINT, BIGINT, TEXT, BIGINT);`;

/**
 * 14: strikes are a buyer's and a nonce's. The registry records a strike once per (buyer, nonce) (`strikeKeyOf`), as
 * the escrow spends a nonce per buyer; keyed by the nonce alone, the queue dropped every later failed call with the
 * same nonce by any buyer (`ON CONFLICT DO NOTHING`: every buyer's bitmap nonces start at index 0). A strike queued
 * before takes the buyer of the reservation of its nonce and resource (a released one first); one whose reservation
 * was purged names no buyer (''), and if it was still queued it is given up (`failed`): the registry records no strike
 * without its buyer.
 */
export const STRIKES_BY_BUYER = `ALTER TABLE strike ADD COLUMN buyer TEXT;
   UPDATE strike s SET buyer = (SELECT r.buyer FROM reservation r
                                 WHERE r.idem_key = s.idem_key AND r.resource_id = s.resource_id
                                 ORDER BY r.status = 'released' DESC, r.buyer LIMIT 1);
   UPDATE strike SET status = 'failed', last_error = 'queued before strikes named their buyer, whose reservation is gone'
    WHERE buyer IS NULL AND status = 'queued';
   UPDATE strike SET buyer = '' WHERE buyer IS NULL;
   ALTER TABLE strike ALTER COLUMN buyer SET NOT NULL;
   ALTER TABLE strike DROP CONSTRAINT strike_pkey;
   ALTER TABLE strike ADD PRIMARY KEY (idem_key, buyer);`;

/**
 * Schema versions, applied in order and recorded in `migration`. Append; never edit an applied one.
 * Amounts are NUMERIC(78,0) (any uint256); times are unix seconds from the service clock.
 */
export const MIGRATIONS: readonly string[] = [
  ...MIGRATIONS_1_TO_3,
  migration4(),
  // 5: committed settlement. `committed_at` is when a settle was answered before its debit was mined (null: it waits
  // for the chain). A committed reservation stays `settling` (held, driven by the retrier after a crash) until mined.
  "ALTER TABLE reservation ADD COLUMN committed_at BIGINT;",
  // 6: a committed settle as a function (see claimAndCommit). A PL/pgSQL function plans its statements once per
  // connection; the same work as one CTE statement was planned on every call, which cost PGlite twice the work itself.
  `CREATE FUNCTION commit_settlement(
     p_idem_key TEXT, p_resource_id TEXT, p_buyer TEXT, p_cap NUMERIC, p_amount NUMERIC, p_response JSONB,
     p_lease_until BIGINT, p_now BIGINT, p_receipt TEXT, p_body JSONB, p_expires_at BIGINT
   ) RETURNS SETOF reservation LANGUAGE plpgsql VOLATILE SET search_path FROM CURRENT AS $$
   BEGIN
     RETURN QUERY UPDATE reservation r SET status = 'settling', amount = p_amount, response = p_response,
            lease_until = p_lease_until, updated_at = p_now, committed_at = p_now
      WHERE r.idem_key = p_idem_key AND r.resource_id = p_resource_id AND r.status = 'reserved'
        AND r.valid_before > p_now AND r.buyer = p_buyer AND r.cap = p_cap AND r.scheme = 'service-escrow'
     RETURNING r.*;
     IF FOUND THEN
       INSERT INTO result (idem_key, resource_id, response, receipt, body, settled_at, expires_at)
       VALUES (p_idem_key, p_resource_id, p_response, p_receipt, p_body, p_now, p_expires_at)
       ON CONFLICT (idem_key) DO NOTHING;
     END IF;
   END $$;`,
  // 7: finished reservations are deleted a retention period after their signed window closed (purgeReservations);
  // this index finds them without scanning the live ones, and holds only finished rows.
  `CREATE INDEX reservation_finished ON reservation (valid_before)
     WHERE status IN ('settled', 'released', 'expired');`,
  // 8: what a buyer holds, read exactly and cheaply; otherwise reserve_payment as in migration 4.
  // - A debit settling, or mined since the block the chain was read at, holds its amount (min(price, cap), what the
  //   escrow takes), not the cap: under committed settlement a buyer's every call of the last batch window stayed
  //   held at the full cap until mined, so a buyer with a few caps' balance was refused in the middle of a burst.
  // - Plain index scans, never bitmap scans. Every payment leaves dead row versions in reservation_live (its reserved
  //   and settling versions), and only VACUUM removes them; PGlite never vacuums, and autovacuum waits for a fifth of
  //   a table to be dead. A bitmap scan visits the heap page of every such entry on every reservation, so a buyer's
  //   reservations grew slower with each payment it ever made; a plain index scan marks the entries it finds dead
  //   (LP_DEAD) and skips them from then on. The two arms of the sum are two queries, as one OR over two indexes can
  //   only be a bitmap scan.
  `CREATE OR REPLACE FUNCTION reserve_payment(
     p_idem_key TEXT, p_scheme TEXT, p_buyer TEXT, p_resource_id TEXT, p_cap NUMERIC, p_payload JSONB,
     p_valid_before BIGINT, p_now BIGINT, p_available NUMERIC, p_room NUMERIC, p_at_block BIGINT
   ) RETURNS TABLE (outcome TEXT, held NUMERIC) LANGUAGE plpgsql VOLATILE
     SET search_path FROM CURRENT SET enable_bitmapscan = off AS $$
   DECLARE
     v_live NUMERIC;
     v_mined NUMERIC;
     v_held NUMERIC;
   BEGIN
     -- Held until the statement's transaction ends; every query below takes a fresh snapshot (VOLATILE), so it
     -- sees what the lock's previous holder committed.
     PERFORM pg_advisory_xact_lock(hashtextextended('buyer:' || p_buyer, 0));
     IF EXISTS (SELECT 1 FROM reservation r WHERE r.idem_key = p_idem_key) THEN
       RETURN QUERY SELECT 'nonce_used'::TEXT, NULL::NUMERIC;
       RETURN;
     END IF;
     -- Live reservations and debits settling (reservation_live), then debits mined at or after the block the
     -- chain was read at (reservation_mined), which that read may not reflect yet.
     SELECT COALESCE(SUM(CASE WHEN r.status = 'settling' THEN COALESCE(r.amount, r.cap) ELSE r.cap END), 0)
       INTO v_live FROM reservation r
      WHERE r.buyer = p_buyer AND r.scheme = p_scheme AND r.status IN ('reserved', 'settling')
        AND (r.status = 'settling' OR r.valid_before > p_now);
     SELECT COALESCE(SUM(COALESCE(r.amount, r.cap)), 0) INTO v_mined FROM reservation r
      WHERE r.buyer = p_buyer AND r.scheme = p_scheme AND r.status = 'settled' AND r.mined_block >= p_at_block;
     v_held := v_live + v_mined;
     IF p_available - v_held < p_cap THEN
       RETURN QUERY SELECT 'insufficient_balance'::TEXT, v_held;
       RETURN;
     END IF;
     IF p_room IS NOT NULL AND v_held + p_cap > p_room THEN
       RETURN QUERY SELECT 'over_cap'::TEXT, v_held;
       RETURN;
     END IF;
     INSERT INTO reservation (idem_key, scheme, buyer, resource_id, cap, payload, valid_before, status, created_at,
                              updated_at, from_block)
     VALUES (p_idem_key, p_scheme, p_buyer, p_resource_id, p_cap, p_payload, p_valid_before, 'reserved', p_now, p_now,
             p_at_block)
     ON CONFLICT (idem_key) DO NOTHING;
     IF NOT FOUND THEN
       RETURN QUERY SELECT 'nonce_used'::TEXT, NULL::NUMERIC;
       RETURN;
     END IF;
     RETURN QUERY SELECT 'reserved'::TEXT, v_held;
   END $$;`,
  MIGRATION_9,
  // 10: the relayer's books: one row per mined settlement transaction (what it cost at its effective gas price, in
  // the token's base units, beside what the treasury earned), and running totals kept in the same statement so
  // /metrics reads one row however long the history.
  `CREATE TABLE settlement_book (
     transaction    TEXT PRIMARY KEY,
     block          BIGINT NOT NULL,
     items          INTEGER NOT NULL,
     debits         INTEGER NOT NULL,
     gas_used       NUMERIC(78,0) NOT NULL,
     gas_price_wei  NUMERIC(78,0) NOT NULL,
     cost_units     NUMERIC(78,0) NOT NULL,
     treasury_units NUMERIC(78,0) NOT NULL,
     recorded_at    BIGINT NOT NULL
   );
   CREATE TABLE settlement_book_total (
     one            BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
     transactions   BIGINT NOT NULL,
     debits         BIGINT NOT NULL,
     gas_used       NUMERIC(78,0) NOT NULL,
     cost_units     NUMERIC(78,0) NOT NULL,
     treasury_units NUMERIC(78,0) NOT NULL
   );
   INSERT INTO settlement_book_total VALUES (TRUE, 0, 0, 0, 0, 0);`,
  MIGRATION_11,
  ONE_ROW_PER_CALL,
  GROUPED_RESERVE_AND_COMMIT,
  STRIKES_BY_BUYER,
  // 15: the escrow book's anchors (escrowBook/createEscrowBook.ts). `synced_hash` is the hash of the block the book
  // stands at: its next page must start on it (that page's first block's parent hash). `start_hash` is the hash of the
  // escrow's start block, which tells another chain (a restarted local chain) from a node whose head is behind.
  "ALTER TABLE escrow_book ADD COLUMN synced_hash TEXT, ADD COLUMN start_hash TEXT;",
  // 16: instances sharing RELAYER_KEYS lease their signers (store/signerLeases.ts): a signer sends for one holder at a
  // time, until `lease_until` (ms, the database's clock); every live holder beats in `signer_lease_holder`, so each
  // takes its share of the pool.
  `CREATE TABLE signer_lease (
     address     TEXT PRIMARY KEY,
     holder      TEXT NOT NULL,
     lease_until BIGINT NOT NULL
   );
   CREATE TABLE signer_lease_holder (
     holder     TEXT PRIMARY KEY,
     seen_until BIGINT NOT NULL
   );`,
  // 17: a batch of held debits sent before it paid for itself (relayer/holdPolicy.ts) says why: `deadline` or
  // `longest_hold`; null for every other settlement transaction.
  "ALTER TABLE settlement_book ADD COLUMN forced TEXT;",
  // 18: a response is kept as the JSON text the gate validated (`json`, not `jsonb`): jsonb refuses a string holding
  // `\u0000` or a lone surrogate, which JSON allows and a handler may answer (echoing its request, say), so such a paid
  // call could never settle; its buyer was told to retry for good. The text also comes back with its keys in their
  // order, where jsonb sorted them. Writers pass a group's responses as a `json[]` beside its other fields, as
  // unpacking them from one jsonb document would refuse them the same way.
  "ALTER TABLE reservation ALTER COLUMN response TYPE JSON USING response::json;",
];
