import { PGlite } from "@electric-sql/pglite";
import { expect } from "chai";
import { freshClusterDump } from "../../services/store/pgliteCluster.ts";
import { sleep } from "../../testkit/sleep.ts";
import { until } from "../../testkit/until.ts";
import { checkpointPeriodically } from "./pgliteCheckpoints.ts";

describe("checkpointing Ponder's PGlite (pgliteCheckpoints.ts)", () => {
  it("moves the redo point, from which a crash replays the log, past what was written", async () => {
    const db = checkpointPeriodically(new PGlite({ loadDataDir: await freshClusterDump() }), 100);
    try {
      await db.query("CREATE TABLE debit (id text PRIMARY KEY, row text)");
      await db.query("INSERT INTO debit SELECT i::text, repeat('x', 500) FROM generate_series(1, 2000) AS i");
      const [{ written } = { written: "" }] = (
        await db.query<{ written: string }>("SELECT pg_current_wal_lsn()::text AS written")
      ).rows;
      // Without checkpoints the redo point stays at start-up, a megabyte of log behind.
      await until(
        async () =>
          (
            await db.query<{ passed: boolean }>(
              `SELECT redo_lsn >= '${written}'::pg_lsn AS passed FROM pg_control_checkpoint()`,
            )
          ).rows[0]?.passed === true || undefined,
        5_000,
        "the redo point past what was written",
        50,
      );
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
    await until(() => sent.length > 0 || undefined, 5_000, "a first checkpoint", 10);
    await db.close();
    const before = sent.length;
    await sleep(100);
    expect(before).to.be.greaterThan(0);
    expect(sent).to.have.length(before);
    expect(new Set(sent)).to.deep.equal(new Set(["CHECKPOINT"]));
  });
});
