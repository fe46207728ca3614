import { expect } from "chai";
import { checkpointPeriodically } from "./pgliteCheckpoints.ts";

/** The PGlite that Ponder embeds (0.2), as Ponder creates it. */
const { PGlite } = (await import(
  new URL("../../node_modules/ponder/node_modules/@electric-sql/pglite/dist/index.js", import.meta.url).href
)) as { PGlite: new () => { closed: boolean; query<R>(sql: string): Promise<{ rows: R[] }>; close(): Promise<void> } };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("checkpointing Ponder's PGlite (pgliteCheckpoints.ts)", () => {
  it("moves the redo point up to what was written, every interval", async () => {
    const db = checkpointPeriodically(new PGlite(), 100);
    const redo = async () =>
      (await db.query<{ lsn: string }>("SELECT redo_lsn::text AS lsn FROM pg_control_checkpoint()")).rows[0]?.lsn;
    try {
      const atStart = await redo();
      await db.query("CREATE TABLE debit (id text PRIMARY KEY, row text)");
      await db.query("INSERT INTO debit SELECT i::text, repeat('x', 500) FROM generate_series(1, 2000) AS i");
      expect(await redo()).to.equal(atStart);
      await sleep(300);
      const behind = (
        await db.query<{ behind: string }>(
          "SELECT (pg_current_wal_lsn() - redo_lsn)::text AS behind FROM pg_control_checkpoint()",
        )
      ).rows[0]?.behind;
      expect(Number(behind)).to.be.below(64 * 1024);
    } finally {
      await db.close();
    }
  });

  it("sends nothing once the database is closed", async () => {
    const sent: string[] = [];
    const db = checkpointPeriodically(
      {
        closed: false as boolean,
        async query(sql: string) {
          sent.push(sql);
        },
        async close() {
          this.closed = true;
        },
      },
      20,
    );
    await sleep(70);
    await db.close();
    const before = sent.length;
    await sleep(80);
    expect(before).to.be.greaterThan(0);
    expect(sent).to.have.length(before);
    expect(new Set(sent)).to.deep.equal(new Set(["CHECKPOINT"]));
  });
});
