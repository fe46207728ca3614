import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { openTestStore, TEST_STORES } from "../../../../testkit/facilitator/openTestStore.ts";
import type { TestSchema } from "../../../../testkit/postgres/testPostgres.ts";
import { testSchema } from "../../../../testkit/postgres/testPostgres.ts";
import { bitmapNonce } from "../../../protocol/bitmapNonce.ts";
import { openStore } from "../../../store/openStore.ts";
import { MIGRATIONS, STRIKES_BY_BUYER } from "../../store/migrations.ts";
import { claimStrikes, enqueueStrike, finishStrike, strikeQueued } from "../../store/strikes.ts";

const A = `0x${"aa".repeat(20)}`;
const B = `0x${"bb".repeat(20)}`;
const RESOURCE = `0x${"01".repeat(32)}`;
const NONCE = bitmapNonce(0);

/**
 * A payment nonce is unique only per buyer (every buyer's bitmap nonces start at index 0). Keyed by the nonce alone,
 * the strike queue marked a second buyer's failed call with the same nonce as already struck (`ON CONFLICT DO
 * NOTHING`), and the registry never heard of it. It is keyed by (buyer, nonce), as the registry's `strikeKeyOf` is.
 */
describe("the strike queue is keyed by buyer and nonce", function () {
  for (const kind of TEST_STORES) {
    it(`queues one strike per (buyer, nonce), two buyers' same nonce included, and sends each (${kind})`, async function () {
      const store = await openTestStore(kind);
      try {
        const strike = (buyer: string) => ({ idemKey: NONCE, buyer, resourceId: RESOURCE, reason: "handler_error" });
        expect(await store.transaction((tx) => enqueueStrike(tx, strike(A), 1))).to.equal(true);
        expect(
          await store.transaction((tx) => enqueueStrike(tx, strike(B.toUpperCase().replace("0X", "0x")), 2)),
        ).to.equal(true);
        expect(await store.transaction((tx) => enqueueStrike(tx, strike(A), 3)), "A's call again").to.equal(false);
        expect(await store.transaction((tx) => strikeQueued(tx, { idemKey: NONCE, buyer: B }))).to.equal(true);
        expect(await store.transaction((tx) => strikeQueued(tx, { idemKey: bitmapNonce(1), buyer: B }))).to.equal(
          false,
        );

        const claimed = await store.transaction((tx) => claimStrikes(tx, 10, 60));
        expect(claimed.map((s) => [s.buyer, s.idemKey]).sort()).to.deep.equal([
          [A, NONCE],
          [B, NONCE],
        ]);
        await store.transaction((tx) =>
          finishStrike(tx, { idemKey: NONCE, buyer: A }, { status: "recorded", txHash: "0x1" }),
        );
        expect(await store.query("SELECT buyer, status, tx_hash FROM strike ORDER BY buyer")).to.deep.equal([
          { buyer: A, status: "recorded", tx_hash: "0x1" },
          { buyer: B, status: "queued", tx_hash: null },
        ]);
      } finally {
        await store.close();
      }
    });
  }

  describe("upgrading a store whose strikes named only the nonce (migration 14)", function () {
    const dir = mkdtempSync(join(tmpdir(), "upgrade-strikes-"));
    let db: TestSchema;
    before(async function () {
      db = await testSchema("facilitator_strikes");
    });
    after(async function () {
      rmSync(dir, { recursive: true, force: true });
      await db?.drop();
    });

    for (const kind of TEST_STORES) {
      it(`gives each strike the buyer of its released reservation, and gives up a queued one whose buyer is gone (${kind})`, async function () {
        const where = kind === "PGlite" ? { dataDir: dir } : { databaseUrl: db.url };
        const before = MIGRATIONS.slice(0, MIGRATIONS.indexOf(STRIKES_BY_BUYER));
        const old = await openStore({ ...where, schema: db.schema, migrations: before });
        const orphan = bitmapNonce(9);
        await old.query(
          `INSERT INTO reservation (idem_key, scheme, buyer, resource_id, cap, payload, valid_before, status, created_at,
                                    updated_at)
           VALUES ($1, 'service-escrow', $2, $3, 1000, '{}'::jsonb, 10, 'settled', 1, 1),
                  ($1, 'service-escrow', $4, $3, 1000, '{}'::jsonb, 10, 'released', 1, 1)`,
          [NONCE, A, RESOURCE, B],
        );
        await old.query(
          `INSERT INTO strike (idem_key, resource_id, reason, status, created_at)
           VALUES ($1, $3, 'handler_error', 'queued', 1), ($2, $3, 'handler_error', 'queued', 1)`,
          [NONCE, orphan, RESOURCE],
        );
        await old.close();

        const store = await openStore({ ...where, schema: db.schema, migrations: MIGRATIONS });
        try {
          expect(await store.query("SELECT idem_key, buyer, status FROM strike ORDER BY idem_key")).to.deep.equal([
            { idem_key: NONCE, buyer: B, status: "queued" },
            { idem_key: orphan, buyer: "", status: "failed" },
          ]);
          expect(
            await store.transaction((tx) =>
              enqueueStrike(tx, { idemKey: NONCE, buyer: A, resourceId: RESOURCE, reason: "r" }, 2),
            ),
          ).to.equal(true);
        } finally {
          await store.close();
        }
      });
    }
  });
});
