import { expect } from "chai";
import { testSchema } from "../../testkit/postgres/testPostgres.ts";
import { sleep } from "../../testkit/sleep.ts";
import { openStore } from "./openStore.ts";

describe("a store's busy seconds", function () {
  it("PGlite: counts the time its statements hold the engine, not the time a statement waits for another's turn", async function () {
    const store = await openStore({ dataDir: "memory://", schema: "busy", migrations: [] });
    try {
      const before = store.busySeconds() ?? Number.NaN;
      const started = performance.now();
      // Ten statements of 20 ms at once: PGlite runs them one after another, so each but the first waits its turn.
      await Promise.all(Array.from({ length: 10 }, () => store.query("SELECT pg_sleep(0.02)")));
      const elapsed = (performance.now() - started) / 1000;
      const busy = (store.busySeconds() ?? Number.NaN) - before;
      expect(busy).to.be.at.least(0.2);
      // Counted from each call, the waits would add up to about five times the elapsed time.
      expect(busy).to.be.at.most(elapsed);
    } finally {
      await store.close();
    }
  });

  it("PGlite: counts a transaction's statements, not the time it holds the engine while its function awaits", async function () {
    const store = await openStore({ dataDir: "memory://", schema: "busy", migrations: [] });
    try {
      const before = store.busySeconds() ?? Number.NaN;
      await store.transaction(async (tx) => {
        await tx.query("SELECT pg_sleep(0.05)");
        await sleep(1_000);
      });
      const busy = (store.busySeconds() ?? Number.NaN) - before;
      expect(busy).to.be.at.least(0.05);
      expect(busy).to.be.below(0.5);
    } finally {
      await store.close();
    }
  });

  it("PostgreSQL: none (its statements run in the server's processes)", async function () {
    const { url, schema, drop } = await testSchema("busy_seconds");
    const store = await openStore({ databaseUrl: url, schema, migrations: [] });
    try {
      await store.query("SELECT 1");
      expect(store.busySeconds()).to.equal(null);
    } finally {
      await store.close();
      await drop();
    }
  });
});
