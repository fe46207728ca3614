import { expect } from "chai";
import { until } from "../../testkit/until.ts";
import { openStore } from "./openStore.ts";
import { memoryDatabaseReuse, reuseMemoryDatabases } from "./pgliteReuse.ts";
import type { Store } from "./store.ts";

const open = (schema: string) => openStore({ dataDir: "memory://", schema, migrations: [] });
const count = async (store: Store, text: string) =>
  // In a transaction: PGlite's own query, so the count does not see a statement the store prepared for itself.
  store.transaction(async (tx) => Number((await tx.query<{ n: string }>(text))[0]?.n));

describe("in-memory PGlite databases reused within a process", function () {
  const suite = memoryDatabaseReuse().options;
  beforeEach(async function () {
    await reuseMemoryDatabases(undefined);
    await reuseMemoryDatabases({ idleMs: 60_000, max: 2 });
  });
  after(async function () {
    await reuseMemoryDatabases(undefined);
    await reuseMemoryDatabases(suite);
  });

  it("hands the next store a closed store's database with nothing of it left: data, statements, settings, listeners", async function () {
    const first = await open("first");
    await first.query("CREATE TABLE secrets (v TEXT)");
    await first.query("INSERT INTO secrets VALUES ($1)", ["the first store's"]);
    await first.query("CREATE TYPE mood AS ENUM ('a')");
    await first.transaction(async (tx) => {
      await tx.query("SET statement_timeout = 1234");
    });
    const heard: string[] = [];
    await first.listen("news", (payload) => heard.push(payload));
    await first.close();
    expect(memoryDatabaseReuse().kept).to.equal(1);

    const second = await open("second");
    expect(memoryDatabaseReuse().kept).to.equal(0);
    expect(await count(second, "SELECT count(*) AS n FROM pg_namespace WHERE nspname = 'first'")).to.equal(0);
    expect(await count(second, "SELECT count(*) AS n FROM pg_class WHERE relname = 'secrets'")).to.equal(0);
    expect(await count(second, "SELECT count(*) AS n FROM pg_prepared_statements")).to.equal(0);
    expect(
      await count(second, "SELECT count(*) AS n FROM pg_settings WHERE name = 'statement_timeout' AND setting <> '0'"),
    ).to.equal(0);
    const own: string[] = [];
    await second.listen("news", (payload) => own.push(payload));
    await second.query("SELECT pg_notify('news', 'for the second')");
    expect(own).to.deep.equal(["for the second"]);
    expect(heard).to.deep.equal([]);
    await second.close();
  });

  it("refuses every call on a closed store, whose database another store may be using", async function () {
    const first = await open("first");
    await first.close();
    const second = await open("second");
    await second.query("CREATE TABLE t (v TEXT)");
    const refusals = await Promise.all(
      [
        first.query("SELECT * FROM second.t"),
        first.transaction(async () => 1),
        first.withLock("k", (sql) => sql.query("SELECT 1")),
        first.listen("news", () => {}),
      ].map((call) =>
        (call as Promise<unknown>).then(
          () => "answered",
          (error: Error) => error.message,
        ),
      ),
    );
    expect(refusals).to.deep.equal(Array(4).fill("the store is closed"));
    await second.close();
  });

  it("closes instead of keeping a database the wipe cannot prove empty (an object outside the store's schema)", async function () {
    const first = await open("first");
    await first.query("CREATE TABLE public.leak (v TEXT)");
    await first.close();
    expect(memoryDatabaseReuse().kept).to.equal(0);
    const second = await open("second");
    expect(await count(second, "SELECT count(*) AS n FROM pg_class WHERE relname = 'leak'")).to.equal(0);
    await second.close();
  });

  it("keeps at most `max` databases, however many close at once, each for `idleMs`, and none once reuse is off", async function () {
    const stores = await Promise.all(["a", "b", "c"].map(open));
    await Promise.all(stores.map((store) => store.close()));
    expect(memoryDatabaseReuse().kept).to.equal(2);
    await reuseMemoryDatabases(undefined);
    expect(memoryDatabaseReuse().kept).to.equal(0);

    await reuseMemoryDatabases({ idleMs: 50, max: 2 });
    await (await open("d")).close();
    expect(memoryDatabaseReuse().kept).to.equal(1);
    await until(() => (memoryDatabaseReuse().kept === 0 ? true : undefined), 10_000, "the idle database closed", 20);
  });
});
