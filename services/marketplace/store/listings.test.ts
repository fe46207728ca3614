import { expect } from "chai";
import pg from "pg";
import type { Hex } from "viem";
import { testSchema } from "../../../testkit/postgres/testPostgres.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { openStore } from "../../store/openStore.ts";
import type { Store } from "../../store/store.ts";
import { findListing, listingsChangedSince, markPublished, removeListing, savePendingListing } from "./listings.ts";
import { MIGRATIONS } from "./migrations.ts";

const resourceId = `0x${"ab".repeat(32)}` as Hex;
const pending = {
  resourceId,
  creator: `0x${"11".repeat(20)}` as Hex,
  slug: "echo",
  resourceUrl: "https://r.example/echo",
  cardText: "{}",
  cardHash: `0x${"00".repeat(32)}` as Hex,
  sampleRequest: {},
  agentId: "1",
};

/**
 * Instances sharing one store each keep their own catalog and pull the listings changed since the last seq they
 * read. Before the fix a publish refused at its registration deleted its pending listing: no change for the others to
 * pull, so they kept listing it as pending, and listed it once the creator registered the resource outside the
 * pipeline (terms no moderation or price check saw).
 */
describe("listings shared by marketplace instances", function () {
  let store: Store;

  before(async function () {
    store = await openStore({ dataDir: "memory://", schema: "marketplace", migrations: MIGRATIONS });
  });

  after(async function () {
    await store?.close();
  });

  it("a listing removed after a refused publish is a change every instance pulls, and a retry makes it pending again", async function () {
    await savePendingListing(store, pending);
    const [saved] = await listingsChangedSince(store, 0n);
    expect(saved?.status).to.equal("pending");
    await removeListing(store, resourceId);
    const changes = await listingsChangedSince(store, saved?.seq ?? 0n);
    expect(changes.map((c) => [c.resourceId, c.status])).to.deep.equal([[resourceId, "removed"]]);
    await savePendingListing(store, pending);
    expect((await findListing(store, resourceId))?.status).to.equal("pending");
  });
});

describe("listings pulled by seq from a shared PostgreSQL", function () {
  this.timeout(60_000);

  it("attack: a write that commits after a higher seq was read is still pulled (no write skipped for good)", async function () {
    // Before, a seq was nextval alone: a write took seq N, another N+1 and committed first, and an instance pulling
    // between the two commits moved its cursor past N and never read that write (a removal, a publish) until a restart.
    const db = await testSchema("marketplace_seq");
    const writer = await openStore({ databaseUrl: db.url, schema: db.schema, migrations: MIGRATIONS });
    const reader = await openStore({ databaseUrl: db.url, schema: db.schema, migrations: MIGRATIONS });
    const holder = new pg.Client({ connectionString: db.url });
    try {
      await holder.connect();
      const first = pending;
      const second = { ...pending, resourceId: `0x${"cd".repeat(32)}` as Hex, slug: "echo-2" };
      await savePendingListing(writer, first);
      let cursor = 0n;
      const pull = async () => {
        const rows = await listingsChangedSince(reader, cursor);
        for (const row of rows) cursor = row.seq;
        return rows.map((row) => [row.slug, row.status]);
      };
      expect(await pull()).to.deep.equal([["echo", "pending"]]);
      // A slow commit: the first listing's row is held, so its publish takes its seq and then waits.
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM ${db.schema}.listing WHERE resource_id = $1 FOR UPDATE`, [first.resourceId]);
      const slow = markPublished(writer, first.resourceId);
      await sleep(300);
      const quick = savePendingListing(writer, second);
      await sleep(300);
      const between = await pull();
      await holder.query("COMMIT");
      await Promise.all([slow, quick]);
      const after = await pull();
      expect([...between, ...after], "every write pulled, in the order it committed").to.deep.equal([
        ["echo", "published"],
        ["echo-2", "pending"],
      ]);
    } finally {
      await holder.end().catch(() => {});
      await writer.close();
      await reader.close();
      await db.drop();
    }
  });
});
