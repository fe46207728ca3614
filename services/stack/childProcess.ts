import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { assertPortFree } from "./ports.ts";

/** A started part of the stack. */
export type Part = {
  name: string;
  child: ChildProcess;
  stop(): Promise<void>;
  /** Resolves when the part has ended, however (a stop too), saying how: "exited with code 1", "was killed (SIGKILL)". */
  ended: Promise<string>;
};

export type StartPartParameters = {
  name: string;
  command: string;
  args: string[];
  env?: Record<string, string | undefined>;
  cwd?: string;
  /**
   * Polled until it resolves true while the part runs; the part counts as started then. False, or why not (what the
   * part answered), while it is not ready.
   */
  ready: () => Promise<boolean | string>;
  /**
   * The port the part listens on (127.0.0.1) and the setting that chose it. It must be free when the part is spawned:
   * another process answering there would pass `ready` for the part, which then exits with EADDRINUSE.
   */
  listens?: { port: number; setting: string };
  /** Aborted when the start gives up (another part failed, or a stop): the part is killed and its start fails. */
  signal?: AbortSignal;
  /** How long the part may take to be ready, counted from when `after` is ready (npm start: READY_TIMEOUT_SECONDS). */
  readyTimeoutMs: number;
  /**
   * A part this one is ready only after (the marketplace after the indexer): its deadline counts from when that part
   * is ready, however long that took, and its start fails at once if that part's does.
   */
  after?: { name: string; ready: Promise<unknown> };
  /** Where the part's output goes, line by line, prefixed with its name. */
  log: (line: string) => void;
  /** Told every `progressEveryMs` (default PROGRESS_EVERY_MS) while the part is still not ready. */
  progress?: (line: string) => void;
  progressEveryMs?: number;
  /**
   * Runs the part under `nice -n <niceness>`: that much nicer than this process (up to 19; 0 or unset: as nice as
   * this process). Every thread the part starts has it, so on a busy machine the part yields the CPU to the others.
   */
  niceness?: number;
};

/** How often a part that is not ready yet is reported. */
export const PROGRESS_EVERY_MS = 20_000;

/** Why the last readiness poll said no, for the progress and the error. */
function why(outcome: boolean | string | Error): string {
  if (outcome instanceof Error) {
    const cause = (outcome.cause as { code?: string } | undefined)?.code;
    return `not answering (${cause ?? outcome.message})`;
  }
  return typeof outcome === "string" ? `answering, not ready yet: ${outcome}` : "answering, not ready yet";
}

/**
 * Starts a child process and waits until `ready()` says so while the child runs; fails fast when its port is taken
 * (before spawning it), when the child exits first or the wait times out (with the last lines of its output), and
 * when `signal` aborts (killing the child).
 * @example const chain = await startPart({ name: "chain", command, args, ready: () => rpcAnswers(url), log })
 */
export async function startPart(p: StartPartParameters): Promise<Part> {
  const abandoned = () => new Error(`${p.name} was not started: ${(p.signal?.reason as Error | undefined)?.message}`);
  if (p.signal?.aborted) throw abandoned();
  if (p.listens)
    await assertPortFree(p.listens.port, p.listens.setting).catch((error: Error) => {
      throw new Error(`${p.name} was not started: ${error.message}`);
    });
  const niced = (p.niceness ?? 0) > 0;
  // nice execs the command: the child's pid is the part's own, and signals reach it directly.
  const child = spawn(niced ? "nice" : p.command, niced ? ["-n", String(p.niceness), p.command, ...p.args] : p.args, {
    cwd: p.cwd,
    env: { ...process.env, ...p.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const tail: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) {
      if (!line.trim()) continue;
      tail.push(line);
      if (tail.length > 20) tail.shift();
      p.log(`${p.name} | ${line}`);
    }
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  let exited: number | null | undefined;
  const ended = new Promise<string>((resolve) =>
    child.once("exit", (code, signal) => {
      exited = code;
      resolve(signal ? `was killed (${signal})` : `exited with code ${code}`);
    }),
  );
  // A command that cannot be run (not installed: `nice` where BACKGROUND_NICENESS asks for it) fails the start by name.
  let unstarted: Error | undefined;
  child.once("error", (error) => (unstarted = error));

  const started = Date.now();
  const timeoutMs = p.readyTimeoutMs;
  let reported = started;
  // undefined while `after` is not ready yet; an Error once it failed.
  let clockFrom = (p.after ? undefined : started) as number | Error | undefined;
  p.after?.ready.then(
    () => (clockFrom = Date.now()),
    (error: Error) => (clockFrom = error),
  );
  for (;;) {
    if (p.signal?.aborted) {
      child.kill("SIGKILL");
      throw abandoned();
    }
    if (clockFrom instanceof Error) {
      child.kill("SIGKILL");
      throw new Error(`${p.name} was not started: the ${p.after?.name} it needs failed (${clockFrom.message})`);
    }
    if (unstarted)
      throw new Error(
        `${p.name} could not start (${niced ? `nice -n ${p.niceness} ` : ""}${p.command}): ${unstarted.message}`,
      );
    if (exited !== undefined)
      throw new Error(`${p.name} exited with code ${exited} before it was ready:\n${tail.join("\n")}`);
    const outcome = await p.ready().catch((error: Error) => error);
    // An answer counts only while the child runs: one that exited meanwhile is reported at the loop's top.
    if (outcome === true && exited === undefined && child.exitCode === null && child.signalCode === null) break;
    const now = Date.now();
    if (clockFrom !== undefined && now - clockFrom > timeoutMs) {
      child.kill("SIGKILL");
      const late = p.after ? `${timeoutMs / 1000}s after the ${p.after.name} was` : `after ${timeoutMs / 1000}s`;
      throw new Error(`${p.name} was not ready ${late} (${why(outcome)}):\n${tail.join("\n")}`);
    }
    if (now - reported >= (p.progressEveryMs ?? PROGRESS_EVERY_MS)) {
      reported = now;
      const waiting = clockFrom === undefined ? ` (waiting for the ${p.after?.name} first)` : "";
      p.progress?.(
        `still waiting for the ${p.name} after ${Math.round((now - started) / 1000)} s: ${why(outcome)}${waiting}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    name: p.name,
    child,
    stop: () => stopChild(child),
    ended,
  };
}

/**
 * Sends SIGTERM and resolves once the child has exited (SIGKILL after `graceMs`); at once if it already has.
 * @example await stopChild(child)
 */
export function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/**
 * Whether an HTTP GET of `url` answers 2xx: true, else why not, from the answer's error body
 * (`{ error: { code, message } }`, as every service answers) when it has one.
 * @example const ready = await answers("http://127.0.0.1:4000/ready")
 */
export async function answers(url: string): Promise<true | string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  if (response.ok) return true;
  const body = (await response.json().catch(() => undefined)) as
    | { error?: { code?: unknown; message?: unknown } }
    | undefined;
  const message = body?.error?.message ?? body?.error?.code;
  return typeof message === "string" && message
    ? message.replace(/\s+/g, " ").slice(0, 200)
    : `HTTP ${response.status}`;
}

/** Whether a JSON-RPC endpoint answers eth_chainId. */
export async function rpcAnswers(url: string): Promise<boolean> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
    signal: AbortSignal.timeout(2_000),
  });
  return response.ok;
}

/** Turns a local chain's automine on or off (`evm_setAutomine`); interval mining, when configured, goes on either way. */
export async function setAutomine(url: string, on: boolean): Promise<void> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "evm_setAutomine", params: [on] }),
    signal: AbortSignal.timeout(5_000),
  });
  const answer = (await response.json()) as { error?: { message?: string } };
  if (answer.error) throw new Error(`evm_setAutomine(${on}) failed: ${answer.error.message ?? "no message"}`);
}
