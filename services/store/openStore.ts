import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { migrate } from "./migrate.ts";
import { freshClusterDump, seedPgliteDir } from "./pgliteCluster.ts";
import { preparedQueries } from "./pglitePrepared.ts";
import { giveBackMemoryDatabase, takeMemoryDatabase } from "./pgliteReuse.ts";
import type { Sql, Store } from "./store.ts";

export type OpenStoreParameters = {
  /** postgres://… ; when absent, PGlite runs embedded in `dataDir`. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` keeps it in memory (tests). */
  dataDir?: string | undefined;
  /** PostgreSQL schema holding the service's tables. */
  schema: string;
  /** The service's schema versions, applied in order (see {@link migrate}). */
  migrations: readonly string[];
  /** Most PostgreSQL connections (default 20). */
  maxConnections?: number | undefined;
};

/**
 * Opens a store and applies its pending migrations, one code path for both engines.
 * @example const store = await openStore({ databaseUrl: process.env.DATABASE_URL, dataDir: ".data/marketplace", schema: "marketplace", migrations })
 */
function channelName(channel: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(channel)) throw new Error(`invalid channel name "${channel}"`);
  return channel;
}

/** Keeps one PostgreSQL connection listening on `channel`, opening it again (after `retryMs`) whenever it drops. */
async function listenPostgres(
  url: string,
  channel: string,
  onNotify: (payload: string) => void,
  onReconnect: (() => void) | undefined,
  retryMs = 1_000,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url });
    next.on("notification", (message) => {
      if (message.channel === channel) onNotify(message.payload ?? "");
    });
    next.on("error", () => {});
    next.on("end", () => {
      if (stopped || client !== next) return;
      client = undefined;
      const retry = () => {
        timer = setTimeout(() => {
          connect().then(
            () => onReconnect?.(),
            () => retry(),
          );
        }, retryMs);
        timer.unref();
      };
      retry();
    });
    await next.connect();
    await next.query(`LISTEN ${channel}`);
    client = next;
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await client?.end().catch(() => {});
  };
}

export async function openStore({
  databaseUrl,
  dataDir,
  schema,
  migrations,
  maxConnections = 20,
}: OpenStoreParameters): Promise<Store> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`invalid schema name "${schema}"`);
  const store = databaseUrl
    ? await openPostgres(databaseUrl, schema, maxConnections)
    : await openPglite(dataDir ?? "memory://", schema);
  try {
    await migrate(store, schema, migrations);
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  return store;
}

async function openPostgres(url: string, schema: string, max: number): Promise<Store> {
  const pool = new pg.Pool({ connectionString: url, max, options: `-c search_path=${schema}` });
  pool.on("error", () => {});
  await pool.query("SELECT 1");
  const run = async <Row>(client: pg.Pool | pg.PoolClient, text: string, params?: readonly unknown[]) =>
    (await client.query(text, params as unknown[])).rows as Row[];
  const store: Store = {
    kind: "postgres",
    query: (text, params) => run(pool, text, params),
    busySeconds: () => null,
    async transaction(fn) {
      const client = await pool.connect();
      // A connection the server ends while the transaction idles (a restart, a failover, an idle-in-transaction
      // timeout) emits 'error', which would end the process without a listener; its next statement fails instead, and
      // the connection is destroyed, not given back.
      let lost: Error | undefined;
      const onLost = (error: Error) => {
        lost = error;
      };
      client.on("error", onLost);
      try {
        await client.query("BEGIN");
        const result = await fn({ query: (text, params) => run(client, text, params) });
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        client.off("error", onLost);
        client.release(lost);
      }
    },
    withLock(key, fn) {
      return store.transaction(async (tx) => {
        await tx.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [key]);
        return fn(tx);
      });
    },
    listen: (channel, onNotify, onReconnect) => listenPostgres(url, channelName(channel), onNotify, onReconnect),
    close: () => pool.end(),
  };
  return store;
}

/** A call on a PGlite store after its `close()`. */
class StoreClosedError extends Error {
  constructor() {
    super("the store is closed");
    this.name = "StoreClosedError";
  }
}

/** A fresh PGlite cluster (what initdb leaves), read once per process; see {@link freshClusterDump}. */
let freshCluster: Promise<Blob> | undefined;

function freshPgliteCluster(): Promise<Blob> {
  freshCluster ??= freshClusterDump().catch((error: unknown) => {
    freshCluster = undefined;
    throw error;
  });
  return freshCluster;
}

async function openPglite(dataDir: string, schema: string): Promise<Store> {
  const memory = dataDir.startsWith("memory://");
  if (!memory) await seedPgliteDir(dataDir);
  // An in-memory database starts as a copy of a fresh cluster dumped once per installation: initdb takes seconds
  // each time, loading its copy a fraction of one (a test process opens dozens of stores, and reuses them wiped).
  const db = memory
    ? await takeMemoryDatabase(async () => PGlite.create(dataDir, { loadDataDir: await freshPgliteCluster() }))
    : await PGlite.create(dataDir);
  await db.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}; SET search_path TO ${schema}`);
  // Once closed, the store answers nothing: its database may already serve the next in-memory store.
  let closed = false;
  const open = () => {
    if (closed) throw new StoreClosedError();
  };
  const listening = new Set<() => Promise<void>>();
  const locks = new Map<string, Promise<unknown>>();
  let busyMs = 0;
  const ran = (ms: number) => {
    busyMs += ms;
  };
  const prepared = preparedQueries(db, undefined, ran);
  const query: Sql["query"] = (text, params) =>
    closed ? Promise.reject(new StoreClosedError()) : prepared(text, params);
  return {
    kind: "pglite",
    query,
    withLock(key, fn) {
      const previous = locks.get(key) ?? Promise.resolve();
      const run = previous.then(() => fn({ query }));
      const tail = run.catch(() => {});
      locks.set(key, tail);
      void tail.then(() => {
        if (locks.get(key) === tail) locks.delete(key);
      });
      return run;
    },
    async transaction(fn) {
      open();
      // Each statement is timed on its own: the transaction also holds PGlite while `fn` awaits other work.
      return db.transaction((tx) =>
        fn({
          query: async (text, params) => {
            const started = performance.now();
            try {
              return (await tx.query(text, params as unknown[])).rows as never[];
            } finally {
              ran(performance.now() - started);
            }
          },
        }),
      );
    },
    listen: async (channel, onNotify) => {
      open();
      const unlisten = await db.listen(channelName(channel), onNotify);
      const stop = async () => {
        listening.delete(stop);
        await unlisten().catch(() => {});
      };
      listening.add(stop);
      return stop;
    },
    busySeconds: () => busyMs / 1000,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...listening].map((stop) => stop()));
      await (memory ? giveBackMemoryDatabase(db) : db.close());
    },
  };
}
