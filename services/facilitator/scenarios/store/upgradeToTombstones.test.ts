import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { openTestStore, TEST_STORES } from "../../../../testkit/facilitator/openTestStore.ts";
import type { TestSchema } from "../../../../testkit/postgres/testPostgres.ts";
import { testSchema } from "../../../../testkit/postgres/testPostgres.ts";
import { openStore } from "../../../store/openStore.ts";
import type { Store } from "../../store/createStore.ts";
import { MIGRATIONS } from "../../store/migrations.ts";

const BUYER = `0x${"ab".repeat(20)}`;
const NONCE = `0x${"01".repeat(32)}`;
const nonceBookComplete = async (store: Store) =>
  (await store.query<{ complete: boolean }>("SELECT complete FROM nonce_book"))[0]?.complete;

/**
 * A store that ran before migration 9 may already have purged the reservations of earlier debits, so its spent-nonce
 * tombstones cannot be complete (the escrow book, migration 11, later tombstones every debit on chain). What it still
 * holds is carried over.
 */
describe("upgrading a store to spent-nonce tombstones (migration 9)", function () {
  const dir = mkdtempSync(join(tmpdir(), "upgrade-tombstones-"));
  let db: TestSchema;
  before(async function () {
    db = await testSchema("facilitator_upgrade");
  });
  after(async function () {
    rmSync(dir, { recursive: true, force: true });
    await db?.drop();
  });

  for (const kind of TEST_STORES) {
    it(`keeps its settled nonces and results, keyed by buyer, and marks its book incomplete (${kind})`, async function () {
      const schema = db.schema;
      const where = kind === "PGlite" ? { dataDir: dir } : { databaseUrl: db.url };
      const before = await openStore({ ...where, schema, migrations: MIGRATIONS.slice(0, 8) });
      await before.query(
        `INSERT INTO reservation (idem_key, scheme, buyer, resource_id, cap, payload, valid_before, status, created_at,
                                  updated_at)
         VALUES ($1, 'service-escrow', $2, $3, 1000, '{}'::jsonb, 10, 'settled', 1, 1)`,
        [NONCE, BUYER, NONCE],
      );
      await before.query(
        `INSERT INTO result (idem_key, resource_id, response, receipt, body, settled_at, expires_at)
         VALUES ($1, $1, '{}'::jsonb, 'r', $2::jsonb, 1, 99999999999)`,
        [NONCE, JSON.stringify({ payer: BUYER.toUpperCase().replace("0X", "0x") })],
      );
      await before.close();

      // Up to migration 9 only: later ones move results into reservations (oneRowPerCall.test.ts).
      const store = await openStore({ ...where, schema, migrations: MIGRATIONS.slice(0, 9) });
      try {
        expect(await nonceBookComplete(store)).to.equal(false);
        expect(await store.query("SELECT buyer, nonce FROM spent_nonce")).to.deep.equal([
          { buyer: BUYER, nonce: NONCE },
        ]);
        expect(await store.query("SELECT buyer FROM result")).to.deep.equal([{ buyer: BUYER }]);
      } finally {
        await store.close();
      }
      const fresh = await openTestStore(kind);
      try {
        expect(await nonceBookComplete(fresh), "a store created with the tombstones").to.equal(true);
      } finally {
        await fresh.close();
      }
    });
  }
});
