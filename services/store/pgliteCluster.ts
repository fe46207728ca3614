import {
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cp } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { withFileLock } from "../buyer/src/sdk/withFileLock.ts";
import { processAlive } from "../protocol/processAlive.ts";

/**
 * How long a process waits for another to finish making the template or the dump before it makes its own: initdb in
 * WASM takes a few seconds alone, and a loaded machine starting a dozen processes at once stretches that to minutes.
 */
const MAKER_WAIT_MS = 600_000;

/**
 * Runs `make` under the lock `${path}.lock` unless `path` exists once the lock is held, so that processes started
 * side by side on a new installation (a stack's four services, a test run's workers) make it once and the others
 * wait for it: each making its own, a dozen initdb runs at once on two cores kept a stack's services from answering
 * for three minutes. Where the lock cannot be taken (a read-only installation, a holder stuck past the wait), `make`
 * runs unlocked.
 */
async function makeOnce(path: string, make: () => Promise<void>): Promise<void> {
  let locked = false;
  try {
    await withFileLock(
      `${path}.lock`,
      async () => {
        locked = true;
        if (!existsSync(path)) await make();
      },
      { timeoutMs: MAKER_WAIT_MS },
    );
  } catch (error) {
    if (locked) throw error;
    if (!existsSync(path)) await make();
  }
}

/** The installed PGlite's package folder (node_modules/@electric-sql/pglite). */
function pglitePackageDir(): string {
  let dir = dirname(fileURLToPath(import.meta.resolve("@electric-sql/pglite")));
  while (!existsSync(join(dir, "package.json"))) dir = dirname(dir);
  return dir;
}

/**
 * Where the template cluster of the installed PGlite lives: node_modules/.cache/pglite-cluster/<version>, so that it
 * goes with the installation it was made by (a reinstall or an upgrade starts a new one).
 */
export function templateClusterDir(): string {
  const packageDir = pglitePackageDir();
  const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string };
  return join(packageDir, "..", "..", ".cache", "pglite-cluster", version);
}

/** Whether `dir` holds a cluster (initdb writes PG_VERSION among its first files; a template is renamed in whole). */
export function holdsCluster(dir: string): boolean {
  return existsSync(join(dir, "PG_VERSION"));
}

/**
 * Removes the folders `${path}.${step}-<pid>-<time>` that a process which has since died left behind (a crash while
 * it made a template or copied one), so that a crash leaves no 40 MB folder for good.
 */
function removeAbandoned(path: string, step: "making" | "seeding"): void {
  const prefix = `${basename(path)}.${step}-`;
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split("-")[0]);
    if (Number.isInteger(pid) && pid > 0 && !processAlive(pid))
      rmSync(join(dirname(path), name), { recursive: true, force: true });
  }
}

/** Makes the template at `template` unless it is there, once across the processes that ask at the same time. */
async function ensureTemplate(template: string): Promise<void> {
  if (!holdsCluster(template)) await makeOnce(template, () => makeTemplate(template));
}

/** Makes the template once: initdb in a folder of its own, renamed into place in one step (a racing maker's loses). */
async function makeTemplate(template: string): Promise<void> {
  removeAbandoned(template, "making");
  const making = `${template}.making-${process.pid}-${Date.now()}`;
  try {
    mkdirSync(making, { recursive: true });
    await (await PGlite.create(making)).close();
    renameSync(making, template);
  } catch (error) {
    if (!holdsCluster(template)) throw error;
  } finally {
    rmSync(making, { recursive: true, force: true });
  }
}

/**
 * Makes `dataDir` and fills it (when absent or empty) with a fresh cluster copied from a template made once per
 * installation, in place of the initdb PGlite would run in it: initdb in WASM costs about 2 s of CPU, the copy a few
 * milliseconds, and the stack starts four clusters at once (three services and the indexer) on as few as two cores.
 * One process makes the template while the others wait for it. A directory that already holds a cluster is left as it
 * is. The template is only ever copied, never opened (a cluster that runs writes to its files). When the template
 * cannot be made (a read-only installation), the directory is left empty and PGlite runs initdb in it as before; so it
 * does in a directory that holds other files.
 * @example await seedPgliteDir(".stack/data/facilitator"); const db = await PGlite.create(".stack/data/facilitator")
 */
export async function seedPgliteDir(dataDir: string, template = templateClusterDir()): Promise<void> {
  if (holdsCluster(dataDir)) return;
  try {
    await ensureTemplate(template);
  } catch {
    mkdirSync(dataDir, { recursive: true });
    return;
  }
  // Copied beside it and renamed into place, so that a crash mid-copy leaves no half cluster behind.
  removeAbandoned(dataDir, "seeding");
  const copying = `${dataDir}.seeding-${process.pid}-${Date.now()}`;
  mkdirSync(dirname(dataDir), { recursive: true });
  try {
    await cp(template, copying, { recursive: true, mode: constants.COPYFILE_FICLONE });
    renameSync(copying, dataDir);
  } catch {
    // `dataDir` holds files of its own (not a cluster): PGlite decides what to do with it, as without a template.
  } finally {
    rmSync(copying, { recursive: true, force: true });
    mkdirSync(dataDir, { recursive: true });
  }
}

/**
 * Makes this installation's template and fresh-cluster dump where either is missing, so that processes opening stores
 * later, side by side, copy and load them rather than wait while one of them runs initdb on a busy machine. `npm test`
 * runs it beside the contract build (testkit/preparePglite.ts), where a core is idle, before the suites start.
 * @example await preparePgliteCluster()
 */
export async function preparePgliteCluster(template = templateClusterDir(), dump = freshClusterDumpPath()) {
  await ensureTemplate(template);
  if (!existsSync(dump)) await freshClusterDump(dump);
}

/** Where the dump of a fresh cluster (what in-memory databases start from) lives: beside the template. */
export function freshClusterDumpPath(): string {
  return `${templateClusterDir()}.tar`;
}

/** {@link freshClusterDumpPath}, or undefined when PGlite's installation cannot be found (a bundled copy). */
function keptDumpPath(): string | undefined {
  try {
    return freshClusterDumpPath();
  } catch {
    return undefined;
  }
}

/**
 * A fresh cluster as PGlite's `loadDataDir` takes it, dumped once per installation and kept beside the template, so
 * that an in-memory database costs a load (about 0.6 s of CPU) and not an initdb (about 3.5 s) in every process
 * that opens one: each demo the buyer's MCP server starts, each facilitator a test spawns. One process makes it while
 * the others wait for it, writing it beside itself and renaming it, so a crash's half file is never read. When the file
 * cannot be written (a read-only installation) the dump is still returned and made again by the next process.
 * @example const db = await PGlite.create("memory://", { loadDataDir: await freshClusterDump() })
 */
export async function freshClusterDump(path = keptDumpPath()): Promise<Blob> {
  if (path === undefined) return dumpFreshCluster();
  if (existsSync(path)) return new Blob([readFileSync(path)]);
  let made: Blob | undefined;
  await makeOnce(path, async () => {
    made = await dumpFreshCluster();
    await keepDump(made, path);
  });
  return made ?? new Blob([readFileSync(path)]);
}

async function dumpFreshCluster(): Promise<Blob> {
  const seed = await PGlite.create("memory://");
  try {
    return await seed.dumpDataDir("none");
  } finally {
    await seed.close();
  }
}

/** Writes `dump` to `path` beside itself and renames it into place; not kept when that fails (read-only). */
async function keepDump(dump: Blob, path: string): Promise<void> {
  const making = `${path}.making-${process.pid}-${Date.now()}`;
  try {
    removeAbandoned(path, "making");
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(making, new Uint8Array(await dump.arrayBuffer()));
    renameSync(making, path);
  } catch {
    if (existsSync(making)) rmSync(making, { force: true });
  }
}
