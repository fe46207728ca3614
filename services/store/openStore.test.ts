import { expect } from "chai";
import { testSchema } from "../../testkit/postgres/testPostgres.ts";
import { sleep } from "../../testkit/sleep.ts";
import { openStore } from "./openStore.ts";

describe("a PostgreSQL store's transactions", function () {
  this.timeout(60_000);

  it("attack: the server ends a connection while its transaction idles: the transaction fails, the process and the pool go on", async function () {
    // Before, the connection's 'error' event had no listener while a transaction held it: an idle-in-transaction
    // timeout (common on managed PostgreSQL), a restart or a failover ended the whole service (a publish awaiting the
    // chain inside its lock, a facilitator between two statements).
    const db = await testSchema("store_lost");
    const store = await openStore({ databaseUrl: db.url, schema: db.schema, migrations: [], maxConnections: 2 });
    try {
      const failed = await store
        .withLock("lost", async (tx) => {
          await tx.query("SET LOCAL idle_in_transaction_session_timeout = '100ms'");
          await sleep(1_000);
          return tx.query("SELECT 1");
        })
        .then(
          () => undefined,
          (error: Error) => error,
        );
      expect(failed, "the transaction's next statement fails").to.be.instanceOf(Error);
      // The lost connection was not given back: both of the pool's connections still answer.
      const answers = await Promise.all([1, 2, 3].map(() => store.transaction((tx) => tx.query("SELECT 1 AS one"))));
      expect(answers).to.deep.equal([[{ one: 1 }], [{ one: 1 }], [{ one: 1 }]]);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
