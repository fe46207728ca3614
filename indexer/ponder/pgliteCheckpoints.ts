import { replaceOnce } from "./replaceOnce.ts";

/** How often Ponder's PGlite is checkpointed. */
export const CHECKPOINT_INTERVAL_MS = 60_000;

/** The part of a PGlite instance this needs. */
type Checkpointable = { closed: boolean; query(sql: string): Promise<unknown>; close(): Promise<void> };

/**
 * Checkpoints `db` every CHECKPOINT_INTERVAL_MS until it is closed. PGlite runs no checkpointer: Ponder's write-ahead
 * log was checkpointed only at shutdown, so it grew by every block indexed (about 3 KB a `Debited`) until a restart,
 * and a crash replayed all of it at the next start. A CHECKPOINT may run between the statements of Ponder's own
 * transactions (it is not transactional); the timer never keeps the process alive.
 * @example const db = checkpointPeriodically(new PGlite(options))
 */
export function checkpointPeriodically<T extends Checkpointable>(db: T, intervalMs = CHECKPOINT_INTERVAL_MS): T {
  const timer = setInterval(() => {
    if (!db.closed) db.query("CHECKPOINT").catch(() => undefined);
  }, intervalMs);
  timer.unref();
  const close = db.close.bind(db);
  db.close = () => {
    clearInterval(timer);
    return close();
  };
  return db;
}

const CREATE = "    return new PGlite(options);";
const CREATE_CHECKPOINTED = "    return checkpointPeriodically(new PGlite(options));";

/** Ponder's utils/pglite.js with every PGlite it creates checkpointed periodically; throws on other code. */
export function checkpointPonderPglite(source: string): string {
  return replaceOnce(source, {
    patch: "pgliteCheckpoints.ts",
    what: "createPglite",
    original: CREATE,
    replacement: CREATE_CHECKPOINTED,
    prefix: `import { checkpointPeriodically } from ${JSON.stringify(import.meta.url)};\n`,
  });
}
