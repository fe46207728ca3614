import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ponderCommand } from "../../indexer/ponder/ponderCommand.ts";
import { seedPgliteDir } from "../../services/store/pgliteCluster.ts";
import type { LocalChain } from "../chain/localChain.ts";
import { freePort } from "../freePort.ts";
import { testDatabase } from "../postgres/testPostgres.ts";
import { sleep } from "../sleep.ts";

const root = new URL("../../", import.meta.url).pathname;

/**
 * Writes the local chain's deployment as Ignition names it (`deployed_addresses.json`, future id → address), which
 * is what the indexer's ponder.config.ts reads; no journal, so every start block is 0 (the chain's genesis).
 */
export function writeDeployment(chain: LocalChain, directory: string): string {
  const path = join(directory, "deployed_addresses.json");
  writeFileSync(
    path,
    JSON.stringify(
      {
        "FiatToken#FiatTokenV2_2": chain.addresses.token,
        "IdentityRegistry#IdentityRegistry": chain.addresses.identity,
        "ResourceRegistry#ResourceRegistry": chain.addresses.registry,
        "PaymentEscrow#PaymentEscrow": chain.addresses.escrow,
      },
      null,
      2,
    ),
  );
  return path;
}

export type StartIndexerOptions = {
  /**
   * Run on the tests' PostgreSQL (testkit/postgres), in a database of its own dropped by `stop` (Ponder's sync cache
   * is keyed by chain id, and every local chain is a new one); PGlite when absent.
   */
  postgres?: boolean;
  /** Realtime polling interval (ms, >= 100). */
  pollingMs?: number;
  /** Ponder's log level (default `warn`; `info` shows progress). */
  logLevel?: string;
  /** Where Ponder's working directory (PGlite data, deployment file) is made (default: the OS's temporary directory). */
  dataRoot?: string;
  /** CPUs to pin Ponder to (`taskset -c`), for benchmarks; unpinned when absent. */
  cpus?: string;
  /** Extra arguments for Node before Ponder's (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** Preload indexer/ponder/patches.ts (default true); false for the bench's comparison with Ponder as installed. */
  patched?: boolean;
  /** The port Ponder is told to listen on (default: a free one). */
  port?: number;
};

/** A running indexer: its base URL, the `/sql` URL for `@ponder/client`, and `stop`. */
export type Indexer = {
  url: string;
  /** The Ponder process. */
  pid: number;
  sqlUrl: string;
  schema: string;
  databaseUrl: string | undefined;
  logs(): string;
  stop(): Promise<void>;
};

/**
 * Starts the Ponder indexer (`ponder start --root indexer`) against a local chain, in a fresh PGlite directory (or a
 * fresh PostgreSQL database), and resolves once `/ready` answers 200 (historical backfill done).
 * @example const indexer = await startIndexer(chain); ...; await indexer.stop()
 */
export async function startIndexer(chain: LocalChain, options: StartIndexerOptions = {}): Promise<Indexer> {
  const work = mkdtempSync(join(options.dataRoot ?? tmpdir(), "indexer-"));
  const deployment = writeDeployment(chain, work);
  const port = options.port ?? (await freePort());
  const schema = `idx_${process.pid}_${port}`;
  const database = options.postgres ? await testDatabase("ponder") : undefined;
  const databaseUrl = database?.url;
  const pgliteDir = join(work, "pglite");
  // As the stack does: a copy of the installation's template cluster, not an initdb of Ponder's own (2.5 s of CPU).
  if (!databaseUrl) await seedPgliteDir(pgliteDir);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RPC_URL: chain.rpcUrl,
    DEPLOYED_ADDRESSES: deployment,
    PONDER_PGLITE_DIR: pgliteDir,
    PONDER_POLLING_MS: String(options.pollingMs ?? 100),
    PONDER_DISABLE_CACHE: "1",
    PONDER_TELEMETRY_DISABLED: "true",
    DATABASE_SCHEMA: schema,
  };
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const ponderArgs = [
    "--root",
    join(root, "indexer"),
    "--log-level",
    options.logLevel ?? "warn",
    "--log-format",
    "json",
    "start",
    "--schema",
    schema,
    "--port",
    String(port),
    "--hostname",
    "127.0.0.1",
  ];
  if (databaseUrl) ponderArgs.push("--views-schema", `${schema}_views`);
  const ponder = ponderCommand(ponderArgs, options);
  const [command, commandArgs] = options.cpus
    ? ["taskset", ["-c", options.cpus, ponder.command, ...ponder.args]]
    : [ponder.command, ponder.args];
  const child: ChildProcess = spawn(command, commandArgs, {
    cwd: join(root, "indexer"),
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  child.stderr!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let stopped = false;
  const url = `http://127.0.0.1:${port}`;

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(work, { recursive: true, force: true });
    await database?.drop().catch(() => {});
  };

  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`ponder exited with ${child.exitCode} before it was ready:\n${output}`);
    }
    const ready = await fetch(`${url}/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`ponder was not ready within 120 s:\n${output}`);
    }
    await sleep(250);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error("ponder has no process id");
  return { url, pid, sqlUrl: `${url}/sql`, schema, databaseUrl, logs: () => output, stop };
}
