import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { assertPortFree } from "../../services/stack/ports.ts";
import { readStackFile, stackFilePath } from "../../services/stack/stackFile.ts";
import { freePort } from "../freePort.ts";
import { sleep } from "../sleep.ts";

/** Free ports for every service of the stack (the chain's too unless `external`, PostgreSQL's with `postgres`). */
export async function stackPorts({ external = false, postgres = false } = {}): Promise<Record<string, string>> {
  const names = [
    "FACILITATOR_PORT",
    "HOST_PORT",
    "MARKETPLACE_PORT",
    "INDEXER_PORT",
    "STUDIO_PORT",
    ...(postgres ? ["POSTGRES_PORT"] : []),
    ...(external ? [] : ["CHAIN_PORT"]),
  ];
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, String(await freePort())])));
}

/**
 * A test stack's READY_TIMEOUT_SECONDS. `npm test` starts stacks beside its other suites on as few as two cores, and
 * on a slow machine that ran a part's start past `npm start`'s default 180 s (the indexer not yet listening at 214 s);
 * the deadline still stops a part that hangs, well inside STACK_START_TIMEOUT_MS.
 */
export const TEST_READY_TIMEOUT_SECONDS = 420;

/**
 * A test stack's host's SANDBOX_START_TIMEOUT_MS and SANDBOX_STALL_MS. On a machine running a test run's other suites
 * at a quarter of its speed (a 0.7-CPU quota), loading a sample handler took over the default 10 s, and a shard
 * restarted under a studio endpoint's load: a probe answered late there is a starved machine, not a stuck handler
 * (the host's own tests keep the defaults and test the watchdog with them).
 */
export const TEST_SANDBOX_LIMITS = { SANDBOX_START_TIMEOUT_MS: "60000", SANDBOX_STALL_MS: "8000" };

/** How long `runStack` waits for stack.json: the parts' deadline, plus the marketplace's after the indexer's. */
export const STACK_START_TIMEOUT_MS = 840_000;

/**
 * Starts the stack as a user would (`npm start`, or `node services/stack/start.ts` with `direct`) in its own process
 * group and waits until it has written `stack.json` in `env.STACK_DIR` (a local stack keeps its deployment record in
 * `STACK_DIR/deployment`, so stacks started side by side never share one). `args` go to the start command
 * (`npm start -- <args>`).
 * @example const stack = await runStack({ STACK_DIR: dir, ...ports }); ...; await stack.stop()
 */
export async function runStack(
  env: Record<string, string>,
  {
    direct = false,
    timeoutMs = STACK_START_TIMEOUT_MS,
    args: startArgs = [] as string[],
    shippedLimits = false,
  }: {
    direct?: boolean;
    timeoutMs?: number;
    args?: string[];
    /** `npm start`'s own deadlines rather than a test stack's (a benchmark of the stack as shipped). */
    shippedLimits?: boolean;
  } = {},
) {
  const stackDir = env.STACK_DIR!;
  const stackFile = stackFilePath(stackDir);
  rmSync(stackFile, { force: true });
  // The facilitator (which inherits this environment) sends committed debits in the next batch rather than holding
  // them until their batch pays for itself: tests of the stack verify each paid call's debit on chain as they go.
  const merged: NodeJS.ProcessEnv = {
    HOLD_MAX_SECONDS: "0",
    ...(shippedLimits ? {} : { READY_TIMEOUT_SECONDS: String(TEST_READY_TIMEOUT_SECONDS), ...TEST_SANDBOX_LIMITS }),
    ...process.env,
    ...env,
  };
  const [command, args] = direct
    ? [process.execPath, ["services/stack/start.ts", ...startArgs]]
    : ["npm", ["start", ...(startArgs.length ? ["--", ...startArgs] : [])]];
  const child: ChildProcess = spawn(command, args, {
    cwd: new URL("../..", import.meta.url).pathname,
    env: merged,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(stackFile)) {
    if (child.exitCode !== null) {
      throw new Error(`the stack exited with ${child.exitCode}:\n${output}`);
    }
    if (Date.now() > deadline) {
      kill(child);
      throw new Error(`no stack.json after ${timeoutMs / 1000} s:\n${output}`);
    }
    await sleep(500);
  }
  let stack: ReturnType<typeof readStackFile>;
  try {
    stack = readStackFile(stackDir);
  } catch (error) {
    // Not left running behind a failed test (a stack whose file cannot be read would hold its ports and CPU).
    kill(child);
    throw error;
  }
  return {
    child,
    stack,
    output: () => output,
    /**
     * SIGTERM to the stack (unless it has ended already), then waits until no process of its group is left and every `*_PORT` of `settings` is
     * free. Returns whether the group was gone in time.
     */
    async stop(settings: Record<string, string> = {}): Promise<boolean> {
      const ended = child.exitCode !== null || child.signalCode !== null;
      const exited = ended ? Promise.resolve() : new Promise((resolve) => child.once("exit", resolve));
      if (!ended) process.kill(child.pid!, "SIGTERM");
      await exited;
      const gone = Date.now() + 20_000;
      let alive = true;
      while (alive && Date.now() < gone) {
        try {
          process.kill(-child.pid!, 0);
          await sleep(200);
        } catch {
          alive = false;
        }
      }
      for (const [name, port] of Object.entries(settings))
        if (name.endsWith("_PORT")) await portFreedWithin(Number(port), name, 10_000);
      return !alive;
    },
    /** Kills whatever is left of the stack's process group (for `after` hooks). */
    kill: () => kill(child),
  };
}

/**
 * Waits until `port` can be bound again. Another process's outgoing connection may hold the same number as its
 * ephemeral port for a moment (the tests pick ports from that range), so only a port still taken after
 * `withinMs` counts as left behind.
 */
async function portFreedWithin(port: number, name: string, withinMs: number): Promise<void> {
  const until = Date.now() + withinMs;
  for (;;) {
    try {
      return await assertPortFree(port, name);
    } catch (error) {
      if (Date.now() > until) throw error;
      await sleep(250);
    }
  }
}

function kill(child: ChildProcess): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {}
}
