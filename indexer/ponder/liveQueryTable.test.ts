import { readFileSync } from "node:fs";
import { expect } from "chai";
import { CREATE_ONCE, createLiveQueryTableOnce, MARK_AFTER_COMMIT } from "./liveQueryTable.ts";

/** The PGlite that Ponder embeds (0.2), as Ponder creates it. */
const { PGlite } = (await import(
  new URL("../../node_modules/ponder/node_modules/@electric-sql/pglite/dist/index.js", import.meta.url).href
)) as {
  PGlite: new () => {
    query<R>(sql: string): Promise<{ rows: R[] }>;
    exec(sql: string): Promise<unknown>;
    onNotification(callback: (channel: string, payload: string) => void): void;
    close(): Promise<void>;
  };
};

const runtime = (name: string) =>
  readFileSync(new URL(`../../node_modules/ponder/dist/esm/runtime/${name}.js`, import.meta.url), "utf8");

/**
 * Ponder's live-query plumbing in miniature: a row trigger on a user table records its name in the session's
 * `live_query_tables`, and a statement trigger on the checkpoint table notifies the list (database/actions.js).
 */
const PLUMBING = `
CREATE TABLE debit (id text PRIMARY KEY);
CREATE TABLE checkpoint (chain text PRIMARY KEY, latest text);
INSERT INTO checkpoint VALUES ('service', '0');
CREATE FUNCTION live_query() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO live_query_tables (table_name) VALUES (TG_TABLE_NAME) ON CONFLICT (table_name) DO NOTHING;
  RETURN NULL;
END $$;
CREATE FUNCTION live_query_notify() RETURNS TRIGGER LANGUAGE plpgsql AS $$
DECLARE table_names json;
BEGIN
  SELECT json_agg(table_name) INTO table_names FROM live_query_tables;
  PERFORM pg_notify('live', COALESCE(table_names, '[]'::json)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER live_query AFTER INSERT OR UPDATE OR DELETE ON debit FOR EACH ROW EXECUTE PROCEDURE live_query();
CREATE TRIGGER live_query_notify AFTER INSERT OR UPDATE OR DELETE ON checkpoint
  FOR EACH STATEMENT EXECUTE PROCEDURE live_query_notify();`;

describe("the live-query table created once per PGlite session (liveQueryTable.ts)", () => {
  for (const name of ["multichain", "omnichain"])
    it(`patches Ponder 0.16.6's ${name} runtime exactly once, and is idempotent`, () => {
      const patched = createLiveQueryTableOnce(runtime(name));
      expect(patched.split(CREATE_ONCE)).to.have.length(2);
      expect(patched.split(MARK_AFTER_COMMIT)).to.have.length(2);
      expect(patched).to.not.include("TRUNCATE TABLE $" + "{getLiveQueryTempTableName()}");
      expect(createLiveQueryTableOnce(patched)).to.equal(patched);
    });

  it("refuses code it was not written for, rather than running Ponder unpatched", () => {
    expect(() => createLiveQueryTableOnce(runtime("isolated"))).to.throw(/not the 0.16 code/);
    expect(() => createLiveQueryTableOnce("export const runMultichain = () => {};")).to.throw(/not the 0.16 code/);
  });

  it("notifies each block's own tables, from a table that keeps its files across blocks", async () => {
    const db = new PGlite();
    try {
      await db.exec(PLUMBING);
      const notified: string[] = [];
      await db.query("LISTEN live");
      db.onNotification((_channel, payload) => notified.push(payload));
      // The patched runtime's statements: the table once, in the first block's transaction; no TRUNCATE after.
      const createOnce =
        "CREATE TEMP TABLE IF NOT EXISTS live_query_tables (table_name TEXT PRIMARY KEY) ON COMMIT DELETE ROWS";
      const files: string[] = [];
      for (const [block, write] of [
        [1, "INSERT INTO debit VALUES ('a')"],
        [2, ""],
        [3, "INSERT INTO debit VALUES ('b'), ('c')"],
      ] as const) {
        await db.exec(
          `BEGIN; ${block === 1 ? `${createOnce};` : ""} ${write}; UPDATE checkpoint SET latest = '${block}'; COMMIT;`,
        );
        const [{ node } = { node: "" }] = (
          await db.query<{ node: string }>(
            "SELECT pg_relation_filenode('live_query_tables')::text || '/' || pg_relation_filenode('live_query_tables_pkey')::text AS node",
          )
        ).rows;
        files.push(node);
        expect((await db.query("SELECT * FROM live_query_tables")).rows, `rows after block ${block}`).to.be.empty;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(notified).to.deep.equal(['["debit"]', "[]", '["debit"]']);
      expect(new Set(files).size, `files ${files.join(", ")}`).to.equal(1);
    } finally {
      await db.close();
    }
  });
});
