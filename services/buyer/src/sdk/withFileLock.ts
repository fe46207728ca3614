import { randomBytes } from "node:crypto";
import {
  closeSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { processAlive } from "../../../protocol/processAlive.ts";
import { BuyerError } from "./buyerError.ts";

export type WithFileLockOptions = {
  /** How long to wait for another holder before giving up (ms); default 30 s. */
  timeoutMs?: number;
};

/** The lock stayed held by another live process for longer than the timeout. */
export class FileLockTimeoutError extends BuyerError {
  override name = "FileLockTimeoutError";
  readonly path: string;
  constructor(path: string, holder: string) {
    super(
      "lock_timeout",
      `the lock ${path} is held by ${holder}; if no such process is running, delete ${path} and try again`,
    );
    this.path = path;
  }
}

type Holder = { pid: number; host: string; token: string };

/** Waiters inside this process, per lock path: they queue here instead of polling their own process's lock file. */
const local = new Map<string, Promise<unknown>>();

/** An empty lock file older than this was left by a holder that died between creating and writing it. */
const EMPTY_LOCK_STALE_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function readHolder(path: string): Holder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, "utf8")) as Holder;
    return typeof holder.pid === "number" && typeof holder.token === "string" ? holder : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the lock at `path` was left by a process that is gone (same host only: another host's pids mean nothing). */
function stale(path: string, holder: Holder | undefined): boolean {
  if (!holder) {
    try {
      return Date.now() - statSync(path).mtimeMs > EMPTY_LOCK_STALE_MS;
    } catch {
      return false;
    }
  }
  return holder.host === hostname() && !processAlive(holder.pid);
}

/** Moves a stale lock aside; puts it back when it turns out to be another holder's fresh lock taken meanwhile. */
function breakStale(path: string, judged: Holder | undefined) {
  const aside = `${path}.stale-${randomBytes(6).toString("hex")}`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  const moved = readHolder(aside);
  if (moved && moved.token !== judged?.token) {
    try {
      linkSync(aside, path);
    } catch {}
  }
  unlinkSync(aside);
}

function tryCreate(path: string, holder: Holder): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx", 0o600);
  } catch (error) {
    if ((error as { code?: string }).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, JSON.stringify(holder));
  } finally {
    closeSync(fd);
  }
  return true;
}

async function acquire(path: string, timeoutMs: number): Promise<Holder> {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const mine: Holder = { pid: process.pid, host: hostname(), token: randomBytes(16).toString("hex") };
  const deadline = Date.now() + timeoutMs;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    if (tryCreate(path, mine)) return mine;
    const holder = readHolder(path);
    if (stale(path, holder)) {
      breakStale(path, holder);
      continue;
    }
    if (Date.now() >= deadline)
      throw new FileLockTimeoutError(path, holder ? `process ${holder.pid} on ${holder.host}` : "an unknown process");
    await sleep(wait + Math.random() * wait);
  }
}

function release(path: string, mine: Holder) {
  if (readHolder(path)?.token === mine.token) unlinkSync(path);
}

/**
 * Runs `work` while holding an exclusive lock shared by every process of this user on this machine: the file at
 * `path`, created exclusively (`O_EXCL`) and holding the holder's pid. A lock left by a process that died is broken;
 * one held by a live process longer than `timeoutMs` is a `FileLockTimeoutError`. Callers in the same process queue
 * in memory.
 * @example const room = await withFileLock(`${ledgerFile}.lock`, async () => readAndHold())
 */
export async function withFileLock<T>(
  path: string,
  work: () => Promise<T> | T,
  options: WithFileLockOptions = {},
): Promise<T> {
  const previous = local.get(path) ?? Promise.resolve();
  const run = previous.then(
    () => undefined,
    () => undefined,
  );
  const turn = run.then(async () => {
    const mine = await acquire(path, options.timeoutMs ?? 30_000);
    try {
      return await work();
    } finally {
      release(path, mine);
    }
  });
  const settled = turn.catch(() => undefined);
  local.set(path, settled);
  settled.then(() => {
    if (local.get(path) === settled) local.delete(path);
  });
  return turn;
}
