import { spawn } from "node:child_process";
import { DEFAULT_POSTGRES_URL, postgresAnswers, startTestPostgres } from "./testPostgres.ts";

/**
 * `node testkit/postgres/withTestPostgres.ts <command> [args…]`: runs the command with `TEST_DATABASE_URL` set, so
 * every test process of one run shares one PostgreSQL: the one already named there, else this machine's on
 * 127.0.0.1:5432 when it lets us in, else a throwaway server started for the run and stopped after it. Exits with
 * the command's status.
 */
const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write("usage: node testkit/postgres/withTestPostgres.ts <command> [args...]\n");
  process.exit(2);
}

let url = process.env.TEST_DATABASE_URL;
let stop = async () => {};
if (!url) {
  if (await postgresAnswers(DEFAULT_POSTGRES_URL)) url = DEFAULT_POSTGRES_URL;
  else {
    const started = performance.now();
    const server = await startTestPostgres();
    process.stderr.write(
      `[test-postgres] no PostgreSQL on 127.0.0.1:5432: started one for this run on port ${server.port} in ${Math.round(performance.now() - started)} ms\n`,
    );
    url = server.url;
    stop = server.stop;
  }
}

const child = spawn(command, args, { stdio: "inherit", env: { ...process.env, TEST_DATABASE_URL: url } });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
const code = await new Promise<number>((resolve) =>
  child.on("exit", (status, signal) => resolve(status ?? (signal ? 1 : 0))),
);
await stop();
process.exit(code);
