import { randomUUID } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { Agent, request as httpRequest } from "node:http";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { Miniflare } from "miniflare";
import type { Logger } from "pino";
import type { Handler } from "../gate/handler.ts";
import { callSandbox } from "./callSandbox.ts";
import type { SandboxMemory } from "./configureWorkerd.ts";
import { configureWorkerd, DEFAULT_SANDBOX_MEMORY } from "./configureWorkerd.ts";
import type { SandboxWatchdog, SandboxWatchdogLimits } from "./watchSandboxProcess.ts";
import { watchSandboxProcess } from "./watchSandboxProcess.ts";

/** The workerd compatibility date every sandbox runs under (no `nodejs_compat`: no `process`, no `node:fs`). */
export const SANDBOX_COMPATIBILITY_DATE = "2025-01-01";

const HEALTH_PATH = "/__sandbox/health";

const ENTRY = `import handler from './handler.mjs'
export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname === '${HEALTH_PATH}') {
      return typeof handler?.fetch === 'function' ? new Response('ok') : new Response('the module has no default export with a fetch method', { status: 500 })
    }
    const pending = []
    let open = true
    const call = Object.freeze({
      waitUntil(promise) {
        if (!open) throw new Error('waitUntil() after the answer: no work outlives its call')
        pending.push(Promise.resolve(promise).catch(() => undefined))
      },
      passThroughOnException() {},
    })
    try {
      const response = await handler.fetch(request, Object.freeze({}), call)
      while (pending.length > 0) await Promise.all(pending.splice(0))
      return response
    } finally {
      open = false
    }
  },
}
`;

/** A handler could not be started in its sandbox (syntax error, no `fetch`, a top level that never finishes). */
export class SandboxStartError extends Error {
  override name = "SandboxStartError";
}

/** Options of one resource's sandbox. */
export type CreateSandboxParameters = {
  name: string;
  /** An ES module whose default export has `fetch(request, env)`. */
  source: string;
  /** workerd network allow-list (CIDRs, or `public`); empty or absent: no outbound network at all. */
  allowNetwork?: string[] | undefined;
  memory?: SandboxMemory | undefined;
  /** When the process counts as stuck and is restarted (`DEFAULT_SANDBOX_WATCHDOG` for what is not given). */
  watchdog?: Partial<SandboxWatchdogLimits> | undefined;
  startTimeoutMs?: number | undefined;
  logger?: Logger | undefined;
};

/** A running sandbox: its handler for the gate, readiness, restarts, its workerd process id, and `dispose`. */
export type Sandbox = {
  handler: Handler;
  ready(): Promise<boolean>;
  restarts(): number;
  /** The pid of the workerd process serving now (undefined while it starts). */
  pid(): number | undefined;
  dispose(): Promise<void>;
};

type Instance = {
  mf: Miniflare;
  url: URL;
  agent: Agent;
  generation: number;
  pid: number | undefined;
  pidFile: string;
  watchdog: SandboxWatchdog;
};

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, "utf8").trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function drain(stream: Readable, onLine: (line: string) => void) {
  createInterface({ input: stream }).on("line", onLine);
}

function get(
  instance: { url: URL; agent: Agent },
  path: string,
  timeoutMs: number,
): Promise<{ status: number; text: string } | undefined> {
  return new Promise((resolve) => {
    const req = httpRequest(new URL(path, instance.url), { agent: instance.agent, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", () => resolve(undefined));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(undefined));
    req.end();
  });
}

/**
 * Starts one resource's handler in its own workerd process (a V8 isolate through miniflare): no filesystem, no
 * `process`, no environment, outbound network blocked unless allow-listed, heap and private memory capped. The handler
 * gets a `ctx` whose `waitUntil` work runs inside its call (the answer waits for it, under the same wall-time limit),
 * so no work outlives a call. Calls go straight to the worker's own socket (a call lost to a stale kept-alive socket
 * is sent again). A watchdog (`watchSandboxProcess`) restarts the process when it burns CPU that no call accounts
 * for, stops answering its periodic health probe, or exits; after a failed or timed-out call the process is
 * restarted at once if it no longer answers its health check (a crash, an endless loop), so one resource cannot stall
 * another. A process that still answers keeps serving the calls in flight on it. Restarts are counted and logged.
 * @throws {SandboxStartError} when the module cannot be loaded or has no `fetch`.
 * @example const sandbox = await createSandbox({ name: 'echo', source }); await gate({ handler: sandbox.handler })
 */
export async function createSandbox(p: CreateSandboxParameters): Promise<Sandbox> {
  const memory = p.memory ?? DEFAULT_SANDBOX_MEMORY;
  const startTimeoutMs = p.startTimeoutMs ?? 15_000;
  const log = p.logger;
  let generation = 0;
  let restarts = 0;
  let disposed = false;
  let serving: Instance | undefined;

  async function teardown(instance: Instance) {
    instance.watchdog.stop();
    instance.agent.destroy();
    await instance.mf.dispose().catch(() => undefined);
    rmSync(instance.pidFile, { force: true });
  }

  async function start(): Promise<Instance> {
    const pidFile = join(configureWorkerd(memory), `${randomUUID()}.pid`);
    const stderr: string[] = [];
    const mf = new Miniflare({
      name: p.name,
      modules: [
        { type: "ESModule", path: "sandbox-entry.mjs", contents: ENTRY },
        { type: "ESModule", path: "handler.mjs", contents: p.source },
      ],
      compatibilityDate: SANDBOX_COMPATIBILITY_DATE,
      outboundService: { network: { allow: p.allowNetwork ?? [] } },
      unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }],
      unsafeRuntimeEnv: { SANDBOX_PID_FILE: pidFile },
      handleRuntimeStdio(out: Readable, err: Readable) {
        drain(out, (line) => log?.debug({ resource: p.name, line: line.slice(0, 500) }, "sandbox stdout"));
        drain(err, (line) => {
          if (stderr.length < 50) stderr.push(line.slice(0, 500));
          log?.debug({ resource: p.name, line: line.slice(0, 500) }, "sandbox stderr");
        });
      },
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 256 });
    let timer: NodeJS.Timeout | undefined;
    try {
      const url = await Promise.race([
        mf.unsafeGetDirectURL(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new SandboxStartError(`the module did not finish loading within ${startTimeoutMs} ms`)),
            startTimeoutMs,
          );
        }),
      ]);
      const health = await get({ url, agent }, HEALTH_PATH, 5_000);
      if (health?.status !== 200) throw new SandboxStartError(health?.text || "the module does not answer");
      const pid = readPid(pidFile);
      if (pid === undefined) log?.warn({ resource: p.name }, "workerd reported no pid; its CPU is not watched");
      const watchdog = watchSandboxProcess({
        pid,
        probe: async (timeoutMs) => (await get({ url, agent }, HEALTH_PATH, timeoutMs))?.status === 200,
        onStuck: (why) => restart(instance, why),
        limits: p.watchdog,
      });
      const instance: Instance = { mf, url, agent, generation: ++generation, pid, pidFile, watchdog };
      serving = instance;
      return instance;
    } catch (error) {
      agent.destroy();
      await mf.dispose().catch(() => undefined);
      rmSync(pidFile, { force: true });
      if (error instanceof SandboxStartError) throw error;
      const detail = stderr.find((line) => /error|exception/i.test(line)) ?? (error as Error).message.split("\n")[0];
      throw new SandboxStartError(`the module could not be loaded: ${detail}`);
    } finally {
      clearTimeout(timer);
    }
  }

  let current: Promise<Instance> = start();
  await current;

  function restart(from: Instance, why: string) {
    if (disposed || from.generation !== generation) return;
    generation++;
    restarts++;
    serving = undefined;
    log?.warn({ resource: p.name, why, restarts, pid: from.pid }, "restarting the sandbox");
    current = teardown(from).then(start);
    current.catch((error) =>
      log?.error({ resource: p.name, err: (error as Error).message }, "the sandbox did not restart"),
    );
  }

  async function instance(): Promise<Instance> {
    try {
      return await current;
    } catch {
      if (disposed) throw new Error("the sandbox is disposed");
      current = start();
      return current;
    }
  }

  return {
    async handler(request) {
      const running = await instance();
      try {
        return await running.watchdog.call(() => callSandbox(running.agent, new URL("/call", running.url), request));
      } catch (error) {
        const timedOut = request.signal.aborted;
        // Restart only a process that no longer answers: a restart fails every call in flight on it.
        void get(running, HEALTH_PATH, 1_000).then((health) => {
          if (health?.status !== 200)
            restart(
              running,
              timedOut
                ? "a timed-out call left the isolate unresponsive"
                : `the sandbox process failed: ${(error as Error).message}`,
            );
        });
        throw new Error(
          timedOut ? "the handler did not answer in time" : `the sandbox failed: ${(error as Error).message}`,
        );
      }
    },
    async ready() {
      try {
        const running = await Promise.race([
          current,
          new Promise<undefined>((resolve) => setTimeout(resolve, 1_000, undefined)),
        ]);
        return running !== undefined && (await get(running, HEALTH_PATH, 1_000))?.status === 200;
      } catch {
        return false;
      }
    },
    restarts: () => restarts,
    pid: () => serving?.pid,
    async dispose() {
      disposed = true;
      const running = await current.catch(() => undefined);
      if (running) await teardown(running);
    },
  };
}
