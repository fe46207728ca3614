import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { expect } from "chai";
import pg from "pg";
import { DEFAULT_POSTGRES_URL, startTestPostgres, testDatabase, testSchema } from "./testPostgres.ts";

const root = new URL("../..", import.meta.url).pathname;

/** What a test process sees of the tests' PostgreSQL: its address, a schema of its own used, its data directory. */
const PROBE = `
import pg from "pg";
import { testPostgresUrl, testSchema } from "./testkit/postgres/testPostgres.ts";
const url = await testPostgresUrl();
const { schema, drop } = await testSchema("kit_probe");
const client = new pg.Client({ connectionString: url });
await client.connect();
await client.query("CREATE SCHEMA " + schema + "; CREATE TABLE " + schema + ".t (n int); INSERT INTO " + schema + ".t VALUES (42)");
const [{ n }] = (await client.query("SELECT n FROM " + schema + ".t")).rows;
const [{ data_directory }] = (await client.query("SHOW data_directory")).rows;
await client.end();
await drop();
console.log(JSON.stringify({ url, given: process.env.TEST_DATABASE_URL || null, n, dataDirectory: data_directory }));
`;

/** Whether this machine can give a command a network namespace of its own (root, util-linux, iproute2). */
const canIsolate = spawnSync("unshare", ["--net", "sh", "-c", "ip link set lo up"]).status === 0;

/** Runs Node with `args` where nothing listens on 127.0.0.1:5432: in a network namespace of its own, loopback up. */
function withoutPostgres(args: string[]) {
  const script = 'ip link set lo up && exec "$0" "$@"';
  const run = spawnSync("unshare", ["--net", "sh", "-c", script, process.execPath, ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, TEST_DATABASE_URL: "" },
    timeout: 120_000,
  });
  expect(run.status, run.stderr).to.equal(0);
  return { ...JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}"), stderr: run.stderr };
}

describe("the tests' PostgreSQL (testkit/postgres)", function () {
  this.timeout(180_000);

  describe("on a machine where nothing answers on 127.0.0.1:5432", function () {
    before(function () {
      // Without a namespace of its own the scenario cannot be made here: the server the kit starts is still checked below.
      if (!canIsolate) this.skip();
    });

    it("a test process starts a real PostgreSQL of its own, uses a schema there, and removes it all when it exits", async function () {
      const seen = withoutPostgres(["--input-type=module", "-e", PROBE]);
      expect(seen.given, "no address was given").to.equal(null);
      expect(seen.url).to.not.equal(DEFAULT_POSTGRES_URL);
      expect(seen.n).to.equal(42);
      expect(existsSync(seen.dataDirectory), "its data directory is gone with the process").to.equal(false);
    });

    it("`withTestPostgres` starts one server for the whole command, hands it on, and stops it after", async function () {
      const seen = withoutPostgres([
        "testkit/postgres/withTestPostgres.ts",
        process.execPath,
        "--input-type=module",
        "-e",
        PROBE,
      ]);
      expect(seen.given, "the command got the run's server").to.equal(seen.url);
      expect(seen.url).to.not.equal(DEFAULT_POSTGRES_URL);
      expect(seen.n).to.equal(42);
      expect(seen.stderr).to.match(/no PostgreSQL on 127\.0\.0\.1:5432: started one for this run/);
      expect(existsSync(seen.dataDirectory), "its data directory is gone after the run").to.equal(false);
    });
  });

  it("a server started by the kit takes connections, keeps data across a restart of its clients, and is gone after stop", async function () {
    const server = await startTestPostgres();
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const [{ server_version_num }] = (await client.query("SHOW server_version_num")).rows;
    await client.end();
    expect(Number(server_version_num)).to.be.greaterThanOrEqual(170_000);
    await server.stop();
    expect(existsSync(server.dataDir)).to.equal(false);
    const after = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: 1_000 });
    after.on("error", () => {});
    const refused = await after.connect().then(
      () => false,
      () => true,
    );
    await after.end().catch(() => {});
    expect(refused, "nothing answers once stopped").to.equal(true);
  });

  it("gives each caller a schema and a database of its own, and drops them", async function () {
    const [a, b] = await Promise.all([testSchema("kit_test"), testSchema("kit_test")]);
    expect(a.schema).to.not.equal(b.schema);
    const database = await testDatabase("kit_test");
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query(`CREATE SCHEMA ${a.schema}`);
    expect((await client.query("SELECT current_database() AS name")).rows[0].name).to.equal(database.name);
    await client.end();
    await database.drop();
    const admin = new pg.Client({ connectionString: a.url });
    await admin.connect();
    try {
      const left = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [database.name]);
      expect(left.rows).to.deep.equal([]);
    } finally {
      await admin.end();
    }
    await Promise.all([a.drop(), b.drop()]);
  });
});
