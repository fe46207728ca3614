import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { deploymentDir } from "../../services/stack/deploymentDir.ts";
import { assertPortFree } from "../../services/stack/ports.ts";
import { readStackFile, stackFilePath } from "../../services/stack/stackFile.ts";
import { freePort } from "../freePort.ts";
import { sleep } from "../sleep.ts";

/** Free ports for every service of the stack (the chain's too unless `external`). */
export async function stackPorts({ external = false } = {}): Promise<Record<string, string>> {
  const names = [
    "FACILITATOR_PORT",
    "HOST_PORT",
    "MARKETPLACE_PORT",
    "INDEXER_PORT",
    "STUDIO_PORT",
    ...(external ? [] : ["CHAIN_PORT"]),
  ];
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, String(await freePort())])));
}

/** Local stacks started by this process, numbered for their deployment ids. */
let localStacks = 0;

/**
 * Starts the stack as a user would (`npm start`, or `node services/stack/start.ts` with `direct`) in its own process
 * group and waits until it has written `stack.json` in `env.STACK_DIR`. A local stack gets a deployment id of its own
 * unless `env.DEPLOYMENT_ID` names one (its Ignition record is removed once the stack is stopped), so test files
 * running side by side never share `ignition/deployments/local-stack`.
 * @example const stack = await runStack({ STACK_DIR: dir, ...ports }); ...; await stack.stop()
 */
export async function runStack(env: Record<string, string>, { direct = false, timeoutMs = 300_000 } = {}) {
  const stackDir = env.STACK_DIR!;
  const stackFile = stackFilePath(stackDir);
  rmSync(stackFile, { force: true });
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  const ownDeployment =
    merged.DEPLOYMENT_ID === undefined && merged.RPC_URL === undefined && merged.NETWORK === undefined
      ? `local-stack-${process.pid}-${++localStacks}`
      : undefined;
  if (ownDeployment) merged.DEPLOYMENT_ID = ownDeployment;
  const forgetDeployment = () => {
    if (ownDeployment) rmSync(deploymentDir(ownDeployment), { recursive: true, force: true });
  };
  const [command, args] = direct ? [process.execPath, ["services/stack/start.ts"]] : ["npm", ["start"]];
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
      forgetDeployment();
      throw new Error(`the stack exited with ${child.exitCode}:\n${output}`);
    }
    if (Date.now() > deadline) {
      kill(child);
      forgetDeployment();
      throw new Error(`no stack.json after ${timeoutMs / 1000} s:\n${output}`);
    }
    await sleep(500);
  }
  const stack = readStackFile(stackDir);
  return {
    child,
    stack,
    output: () => output,
    /**
     * SIGTERM to the stack, then waits until no process of its group is left and every `*_PORT` of `settings` is
     * free. Returns whether the group was gone in time.
     */
    async stop(settings: Record<string, string> = {}): Promise<boolean> {
      const exited =
        child.exitCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("exit", resolve));
      process.kill(child.pid!, "SIGTERM");
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
      forgetDeployment();
      for (const [name, port] of Object.entries(settings))
        if (name.endsWith("_PORT")) await portFreedWithin(Number(port), name, 10_000);
      return !alive;
    },
    /** Kills whatever is left of the stack's process group (for `after` hooks). */
    kill: () => {
      kill(child);
      forgetDeployment();
    },
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
