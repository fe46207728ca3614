import type { PGlite } from "@electric-sql/pglite";

/**
 * The first oid PostgreSQL gives an object made after initdb (`FirstNormalObjectId`): a fresh cluster has none at or
 * above it, whatever a store made since has one.
 */
const FIRST_USER_OID = 16384;

/** The catalogs a store's objects can land in; each must hold no row with a user oid for a database to be kept. */
const CATALOGS = [
  "pg_namespace",
  "pg_class",
  "pg_type",
  "pg_proc",
  "pg_operator",
  "pg_collation",
  "pg_extension",
  "pg_authid",
  "pg_database",
  "pg_largeobject_metadata",
  "pg_event_trigger",
  "pg_foreign_data_wrapper",
  "pg_foreign_server",
  "pg_publication",
  "pg_ts_config",
  "pg_ts_dict",
] as const;

const DROP_USER_SCHEMAS = `DO $$ DECLARE s text; BEGIN
  FOR s IN SELECT nspname FROM pg_namespace WHERE oid >= ${FIRST_USER_OID} LOOP
    EXECUTE format('DROP SCHEMA %I CASCADE', s);
  END LOOP;
END $$`;

const LEFT_OVER = `SELECT ${CATALOGS.map((catalog) => `(SELECT count(*) FROM ${catalog} WHERE oid >= ${FIRST_USER_OID})`).join(" + ")}
  + (SELECT count(*) FROM pg_db_role_setting) AS n`;

type Reuse = { idleMs: number; max: number };

let reuse: Reuse | undefined;
const idle = new Map<PGlite, NodeJS.Timeout>();

/**
 * Turns on the reuse of in-memory PGlite databases in this process (off by default; the test suites turn it on). A
 * fresh `memory://` database costs a load of the fresh cluster (0.5 to 1 s of CPU); a closed store's database is
 * wiped instead (a few tens of milliseconds) and handed to the next `memory://` store the process opens. It is kept
 * only when the wipe is proven, nothing made since initdb left in any catalog, else it is closed as without reuse,
 * and at most `max` are kept, each for `idleMs` (a kept database holds PGlite's timer, which would keep the process
 * alive). `undefined` turns reuse off and closes what is kept.
 * @example reuseMemoryDatabases({ idleMs: 5_000, max: 2 })
 */
export async function reuseMemoryDatabases(options: Reuse | undefined): Promise<void> {
  reuse = options;
  if (!options) await Promise.all([...idle.keys()].map((db) => closeIdle(db)));
}

/** The reuse in force ({@link reuseMemoryDatabases}), and how many databases are kept now. */
export function memoryDatabaseReuse(): { options: Reuse | undefined; kept: number } {
  return { options: reuse, kept: idle.size };
}

/** A kept database, wiped, when there is one; else `create()`'s. */
export async function takeMemoryDatabase(create: () => Promise<PGlite>): Promise<PGlite> {
  const [kept] = idle.keys();
  if (!kept) return create();
  clearTimeout(idle.get(kept));
  idle.delete(kept);
  return kept;
}

/**
 * Gives back a closed store's in-memory database: wiped and kept for the next store when reuse is on, room is left and
 * the wipe leaves nothing behind; closed otherwise. Nothing of the store outlives this: its session state (settings,
 * prepared statements, `LISTEN`s, temporary tables) is discarded and every object it made is dropped.
 */
export async function giveBackMemoryDatabase(db: PGlite): Promise<void> {
  const room = () => (reuse && idle.size < reuse.max ? reuse : undefined);
  // Room is counted again after the wipe: another store's database may have been kept meanwhile, or reuse turned off.
  const keep = room() && (await wiped(db)) ? room() : undefined;
  if (keep) {
    const timer = setTimeout(() => void closeIdle(db), keep.idleMs);
    timer.unref();
    idle.set(db, timer);
    return;
  }
  await db.close().catch(() => {});
}

async function wiped(db: PGlite): Promise<boolean> {
  try {
    await db.exec("DISCARD ALL");
    await db.exec(DROP_USER_SCHEMAS);
    const [{ n } = { n: 1 }] = (await db.query<{ n: number | string }>(LEFT_OVER)).rows;
    return Number(n) === 0;
  } catch {
    return false;
  }
}

async function closeIdle(db: PGlite): Promise<void> {
  clearTimeout(idle.get(db));
  if (!idle.delete(db)) return;
  await db.close().catch(() => {});
}
