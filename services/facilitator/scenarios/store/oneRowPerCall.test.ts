import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import { openTestStore, TEST_STORES } from "../../../../testkit/facilitator/openTestStore.ts";
import {
  escrowReservation,
  paidCallReceipts,
  sizedPayload,
  storePaidCalls,
} from "../../../../testkit/facilitator/storePaidCalls.ts";
import type { TestSchema, TestStore } from "../../../../testkit/postgres/testPostgres.ts";
import { testSchema } from "../../../../testkit/postgres/testPostgres.ts";
import { encodeBase64Json } from "../../../protocol/base64.ts";
import { RESULT_TTL_SECONDS } from "../../../protocol/constants.ts";
import { openStore } from "../../../store/openStore.ts";
import { settleBody } from "../../commitSettlement.ts";
import type { Store } from "../../store/createStore.ts";
import { createStore } from "../../store/createStore.ts";
import { MIGRATIONS, ONE_ROW_PER_CALL } from "../../store/migrations.ts";
import { payersOf } from "../../store/payersOf.ts";
import { claimAndCommit, findReservation, purgeReservations, reserve } from "../../store/reservations.ts";
import { failCommitment, findResult, recordSettlement } from "../../store/results.ts";

const hex = (n: number, bytes = 32): Hex => `0x${n.toString(16).padStart(bytes * 2, "0")}`;
const resourceId = hex(1);
const buyer = hex(0xb1, 20);
const response = {
  status: 200,
  contentType: "application/json",
  body: { zeta: 1, alpha: "ä", nested: { b: 2, a: 1 } },
};
const NOW = 1_000_000;
const DAY = 86_400;
/** The migrations a store had before this change. */
const BEFORE = MIGRATIONS.slice(0, MIGRATIONS.indexOf(ONE_ROW_PER_CALL));

/** A reservation row as the store before this change wrote it, and its result row when `result` is given. */
async function writeOldCall(
  store: Store,
  c: {
    idemKey: Hex;
    status: string;
    committedAt?: number;
    failure?: string;
    result?: { receipt: string; body: Record<string, unknown>; settledAt: number };
    purged?: boolean;
  },
): Promise<void> {
  if (!c.purged)
    await store.query(
      `INSERT INTO reservation (idem_key, scheme, buyer, resource_id, cap, payload, valid_before, status, amount,
                                response, created_at, updated_at, committed_at, failure, from_block, request_hash)
       VALUES ($1, 'service-escrow', $2, $3, 1000, $4::jsonb, $5, $6, 1000, $7::jsonb, $8, $8, $9, $10, 2, $11)`,
      [
        c.idemKey,
        buyer,
        resourceId,
        JSON.stringify(sizedPayload(buyer, resourceId, c.idemKey, NOW + 300)),
        NOW + 300,
        c.status,
        c.status === "reserved" ? null : JSON.stringify(response),
        NOW,
        c.committedAt ?? null,
        c.failure ?? null,
        hex(0xaa),
      ],
    );
  if (c.result)
    await store.query(
      `INSERT INTO result (idem_key, buyer, resource_id, response, receipt, body, settled_at, expires_at)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6::jsonb, $7, $8)`,
      [
        c.idemKey,
        buyer,
        resourceId,
        JSON.stringify(response),
        c.result.receipt,
        JSON.stringify(c.result.body),
        c.result.settledAt,
        c.result.settledAt + RESULT_TTL_SECONDS,
      ],
    );
}

/** A result as `GET /results` and a repeated settle read it, serialised: byte for byte what they send. */
const served = (r: { response: unknown; receipt: string; body: unknown; settledAt: number; expiresAt: number }) =>
  JSON.stringify([r.response, r.receipt, r.body, r.settledAt, r.expiresAt]);

describe("one row per paid call: upgrading a store that kept results apart", function () {
  const dir = mkdtempSync(join(tmpdir(), "one-row-"));
  let db: TestSchema;
  before(async function () {
    db = await testSchema("facilitator_one_row");
  });
  after(async function () {
    rmSync(dir, { recursive: true, force: true });
    await db?.drop();
  });
  const where = (kind: TestStore) => (kind === "PGlite" ? { dataDir: dir } : { databaseUrl: db.url });

  for (const kind of TEST_STORES) {
    it(`serves every kept result as before, with its payment, and a purged reservation's result alone (${kind})`, async function () {
      const [committed, confirmed, failed, orphan, reserved] = [hex(11), hex(12), hex(13), hex(14), hex(15)];
      const receipts = (idemKey: Hex) =>
        paidCallReceipts({ buyer, resourceId, idemKey, now: NOW, transaction: hex(7) });
      const failure = "the authorization expired before the chain confirmed the debit";
      const schema = db.schema;
      const before = await openStore({ ...where(kind), schema, migrations: BEFORE });
      const calls = [
        { idemKey: committed, status: "settling", committedAt: NOW, receipt: receipts(committed).committed },
        { idemKey: confirmed, status: "settled", committedAt: NOW, receipt: receipts(confirmed).confirmed },
        { idemKey: failed, status: "released", committedAt: NOW, failure, receipt: receipts(failed).committed },
        { idemKey: orphan, status: "settled", purged: true, receipt: receipts(orphan).confirmed },
      ];
      for (const { receipt, ...call } of calls) {
        const body = { ...settleBody(receipt), ...(call.failure ? { status: "failed", failure } : {}) };
        await writeOldCall(before, { ...call, result: { receipt: encodeBase64Json(receipt), body, settledAt: NOW } });
      }
      await writeOldCall(before, { idemKey: reserved, status: "reserved" });
      const old = await before.query<{ idem_key: string; response: unknown; receipt: string; body: unknown }>(
        "SELECT idem_key, response, receipt, body FROM result ORDER BY idem_key",
      );
      await before.close();

      const store = await createStore({ ...where(kind), schema });
      try {
        expect(await store.query("SELECT to_regclass('result') AS t"), "no result table").to.deep.equal([{ t: null }]);
        expect(await store.query("SELECT count(*)::int AS n FROM reservation")).to.deep.equal([{ n: 5 }]);
        for (const row of old) {
          const result = await findResult(store, { idemKey: row.idem_key, buyer }, NOW + 1);
          expect(result && served(result)).to.equal(
            served({
              response: row.response,
              receipt: row.receipt,
              body: row.body,
              settledAt: NOW,
              expiresAt: NOW + DAY,
            }),
          );
        }
        expect((await findResult(store, { idemKey: failed, buyer }, NOW + 1))?.body).to.include({
          status: "failed",
          failure,
        });
        expect((await findResult(store, { idemKey: committed, buyer }, NOW + 1))?.payment).to.deep.equal(
          sizedPayload(buyer, resourceId, committed, NOW + 300),
        );
        expect((await findResult(store, { idemKey: confirmed, buyer }, NOW + 1))?.requestHash).to.equal(hex(0xaa));
        expect(await findResult(store, { idemKey: reserved, buyer }, NOW + 1), "no result yet").to.equal(null);
        // The purged reservation's result is served without its payment, and is no reservation: as before.
        expect((await findResult(store, { idemKey: orphan, buyer }, NOW + 1))?.payment).to.equal(null);
        expect(await findReservation(store, { idemKey: orphan, buyer })).to.equal(null);
        expect(await payersOf(store, { table: "reservation", idemKey: orphan, resourceId })).to.deep.equal([]);
        expect(await payersOf(store, { table: "result", idemKey: orphan, now: NOW + 1 })).to.deep.equal([buyer]);
        // Its row goes once its result expires.
        expect(await purgeReservations(store, NOW + DAY - 1, DAY)).to.equal(0);
        expect(await purgeReservations(store, NOW + DAY, DAY)).to.equal(1);
        expect(await findResult(store, { idemKey: orphan, buyer }, NOW + 1)).to.equal(null);
      } finally {
        await store.close();
      }
    });
  }
});

for (const kind of TEST_STORES) {
  describe(`one row per paid call (${kind})`, function () {
    let store: Store;

    beforeEach(async function () {
      store = await openTestStore(kind);
    });
    afterEach(async function () {
      await store.close();
    });

    /** A reserved escrow payment of `idemKey`, valid until `validBefore`. */
    const reserveOne = (idemKey: Hex, validBefore = NOW + 300) =>
      reserve(store, escrowReservation({ buyer, resourceId, idemKey, cap: 1_000n, validBefore }), {
        now: NOW,
        available: 10n ** 9n,
        room: null,
        atBlock: 2n,
      });
    const commitOne = (idemKey: Hex, receipt: string) =>
      claimAndCommit(
        store,
        {
          idemKey,
          resourceId,
          buyer,
          cap: 1_000n,
          amount: 1_000n,
          response,
          leaseUntil: NOW + 60,
          receipt,
          expiresAt: NOW + RESULT_TTL_SECONDS,
        },
        NOW,
      );

    it("keeps a paid call, its response and its receipt in one row", async function () {
      const payments = Array.from({ length: 20 }, (_, i) => ({ buyer, idemKey: hex(100 + i) }));
      await storePaidCalls(store, { resourceId, payments, now: NOW, validBefore: NOW + 300, block: 3, response });
      expect(await store.query("SELECT count(*)::int AS n FROM reservation")).to.deep.equal([{ n: 20 }]);
      const columns = await store.query<{ name: string }>(
        `SELECT column_name AS name FROM information_schema.columns
          WHERE table_schema = current_schema() AND data_type IN ('json', 'jsonb', 'text') ORDER BY column_name`,
      );
      // One column each for the response and the receipt; no stored settle answer beside them.
      expect(columns.map((c) => c.name)).to.include.members(["response", "receipt"]);
      expect(columns.map((c) => c.name)).to.not.include("body");
    });

    it("answers a repeated settle with what settleBody made of the receipt, committed, failed or confirmed", async function () {
      const [first, second] = [hex(201), hex(202)];
      const { committed, confirmed } = paidCallReceipts({
        buyer,
        resourceId,
        idemKey: first,
        now: NOW,
        transaction: hex(7),
      });
      for (const idemKey of [first, second]) await reserveOne(idemKey);
      await commitOne(first, encodeBase64Json(committed));
      await commitOne(second, encodeBase64Json(committed));
      const answer = async (idemKey: Hex) => (await findResult(store, { idemKey, buyer }, NOW))?.body;
      expect(await answer(first)).to.deep.equal(settleBody(committed));
      expect((await findResult(store, { idemKey: first, buyer }, NOW))?.response).to.deep.equal(response);

      const mined = { transaction: hex(7), block: 3n };
      const record = { idemKey: first, buyer, resourceId, settledAt: NOW, expiresAt: NOW + RESULT_TTL_SECONDS };
      expect(await recordSettlement(store, { ...record, receipt: encodeBase64Json(confirmed) }, mined)).to.deep.equal(
        settleBody(confirmed),
      );
      expect(await answer(first)).to.deep.equal(settleBody(confirmed));

      const failure = "the authorization expired before the chain confirmed the debit";
      await failCommitment(store, { idemKey: second, buyer }, failure, NOW + 400);
      expect(await answer(second)).to.deep.equal({ ...settleBody(committed), status: "failed", failure });
      // A debit of it that lands after all does not turn the failed answer back, as before.
      await recordSettlement(store, { ...record, idemKey: second, receipt: encodeBase64Json(confirmed) }, mined);
      expect(await answer(second)).to.deep.include({ status: "failed", failure });
    });

    it("keeps a row until both its reservation and its result are past retention", async function () {
      const [early, late] = [hex(301), hex(302)];
      for (const idemKey of [early, late]) await reserveOne(idemKey, NOW + 300);
      for (const idemKey of [early, late]) {
        const { committed, confirmed } = paidCallReceipts({
          buyer,
          resourceId,
          idemKey,
          now: NOW,
          transaction: hex(7),
        });
        await commitOne(idemKey, encodeBase64Json(committed));
        // `late` was mined only after its window closed (its debit found by the retrier), so its result outlives it.
        const settledAt = idemKey === late ? NOW + 2 * DAY : NOW;
        await recordSettlement(
          store,
          { idemKey, buyer, resourceId, receipt: encodeBase64Json(confirmed), settledAt, expiresAt: settledAt + DAY },
          { transaction: hex(7), block: 3n },
        );
      }
      const reservationGone = NOW + 300 + DAY;
      expect(await purgeReservations(store, reservationGone - 1, DAY)).to.equal(0);
      // Past its result, `early` is still a reservation until its own retention ends.
      expect(await findResult(store, { idemKey: early, buyer }, NOW + DAY)).to.equal(null);
      expect(await findReservation(store, { idemKey: early, buyer })).to.include({ status: "settled" });
      expect(await purgeReservations(store, reservationGone, DAY)).to.equal(1);
      expect(await findReservation(store, { idemKey: early, buyer })).to.equal(null);
      expect(await findResult(store, { idemKey: late, buyer }, reservationGone), "still served").to.include({
        idemKey: late,
      });
      expect(await purgeReservations(store, NOW + 3 * DAY, DAY)).to.equal(1);
      expect(await store.query("SELECT count(*)::int AS n FROM reservation")).to.deep.equal([{ n: 0 }]);
    });
  });
}
