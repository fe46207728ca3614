import { PGlite } from "@electric-sql/pglite";
import { expect } from "chai";
import { freshClusterDump } from "./pgliteCluster.ts";
import { preparedQueries } from "./pglitePrepared.ts";

describe("preparedQueries (PGlite)", function () {
  let db: PGlite;
  before(async function () {
    db = await PGlite.create("memory://", { loadDataDir: await freshClusterDump() });
  });
  after(async function () {
    await db.close();
  });
  // One database for the suite (a new one takes seconds): each test starts with a new table and nothing prepared.
  beforeEach(async function () {
    await db.exec(`DEALLOCATE ALL; DROP TABLE IF EXISTS t; CREATE TABLE t (id INT PRIMARY KEY, amount NUMERIC(78,0), tags TEXT[], doc JSONB, ok BOOLEAN,
                                   at BIGINT, note TEXT)`);
  });

  const insert = "INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *";
  const values = [1, "123456789012345678901234567890", ["a", "b,c"], { nested: [1, "x"] }, true, 2n ** 60n, null];

  it("answers as PGlite's query does: parameters serialized by their types, rows parsed the same", async function () {
    const query = preparedQueries(db);
    const ours = await query(insert, values);
    const theirs = (await db.query("SELECT * FROM t WHERE id = $1", [1])).rows;
    expect(ours).to.deep.equal(theirs);
    expect(ours[0]).to.include({ amount: "123456789012345678901234567890", ok: true, note: null });
    expect((ours[0] as { doc: unknown }).doc).to.deep.equal({ nested: [1, "x"] });
    expect((ours[0] as { tags: unknown }).tags).to.deep.equal(["a", "b,c"]);
    expect(await query("SELECT count(*)::int AS n FROM t WHERE id = ANY($1::int[])", [[1, 2]])).to.deep.equal([
      { n: 1 },
    ]);
  });

  it("runs a statement again with new parameters from its one preparation", async function () {
    const query = preparedQueries(db);
    for (let id = 1; id <= 5; id++) await query(insert, [id, String(id), [], {}, false, id, `n${id}`]);
    const prepared = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE 'INSERT INTO t%'",
    );
    expect(prepared.rows[0]?.n).to.equal(1);
    expect(await query("SELECT note FROM t ORDER BY id", [])).to.deep.equal(
      [1, 2, 3, 4, 5].map((id) => ({ note: `n${id}` })),
    );
  });

  it("throws PostgreSQL's error with the statement, and stays usable after it", async function () {
    const query = preparedQueries(db);
    await query(insert, values);
    const duplicate = await query(insert, values).catch((error: unknown) => error);
    expect(duplicate).to.include({ code: "23505", query: insert });
    const syntax = await query("SELEC 1", []).catch((error: unknown) => error);
    expect(syntax).to.include({ code: "42601" });
    // A statement that failed to parse is not kept: the same text fails the same way, not as an unknown statement.
    expect(await query("SELEC 1", []).catch((error: unknown) => error)).to.include({ code: "42601" });
    expect(await query("SELECT count(*)::int AS n FROM t", [])).to.deep.equal([{ n: 1 }]);
  });

  it("prepares again a statement whose table changed shape since", async function () {
    const query = preparedQueries(db);
    await query(insert, values);
    expect(Object.keys((await query("SELECT * FROM t", []))[0] as object)).to.not.include("extra");
    await db.exec("ALTER TABLE t ADD COLUMN extra TEXT DEFAULT 'x'");
    expect(await query("SELECT * FROM t", []))
      .to.have.length(1)
      .and.nested.property("[0].extra", "x");
  });

  it("keeps at most `max` statements prepared, closing the least recently used", async function () {
    const query = preparedQueries(db, 2);
    await query("SELECT 1 AS a", []);
    await query("SELECT 2 AS b", []);
    await query("SELECT 1 AS a", []);
    await query("SELECT 3 AS c", []);
    const names = await db.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements ORDER BY 1");
    expect(names.rows.map((r) => r.statement)).to.deep.equal(["SELECT 1 AS a", "SELECT 3 AS c"]);
    expect(await query("SELECT 2 AS b", [])).to.deep.equal([{ b: 2 }]);
  });

  it("waits for another caller's transaction instead of running inside it", async function () {
    const query = preparedQueries(db);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const transaction = db.transaction(async (tx) => {
      await tx.query("INSERT INTO t (id) VALUES (7)");
      await held;
      await tx.rollback();
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const counted = query<{ n: number }>("SELECT count(*)::int AS n FROM t", []);
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await transaction;
    // Run inside the transaction, it would have counted the row the transaction then rolled back.
    expect(await counted).to.deep.equal([{ n: 0 }]);
  });
});
