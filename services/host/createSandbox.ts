import { Agent, request as httpRequest } from "node:http";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { Miniflare } from "miniflare";
import type { Logger } from "pino";
import type { Handler } from "../gate/handler.ts";
import { callSandbox } from "./callSandbox.ts";
import type { SandboxMemory } from "./configureWorkerd.ts";
import { configureWorkerd, DEFAULT_SANDBOX_MEMORY } from "./configureWorkerd.ts";

/** The workerd compatibility date every sandbox runs under (no `nodejs_compat`: no `process`, no `node:fs`). */
export const SANDBOX_COMPATIBILITY_DATE = "2025-01-01";

const HEALTH_PATH = "/__sandbox/health";

const ENTRY = `import handler from './handler.mjs'
export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname === '${HEALTH_PATH}') {
      return typeof handler?.fetch === 'function' ? new Response('ok') : new Response('the module has no default export with a fetch method', { status: 500 })
    }
    return handler.fetch(request, Object.freeze({}), ctx)
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
  startTimeoutMs?: number | undefined;
  logger?: Logger | undefined;
};

/** A running sandbox: its handler for the gate, readiness, restarts, and `dispose`. */
export type Sandbox = {
  handler: Handler;
  ready(): Promise<boolean>;
  restarts(): number;
  dispose(): Promise<void>;
};

type Instance = { mf: Miniflare; url: URL; agent: Agent; generation: number };

function drain(stream: Readable, onLine: (line: string) => void) {
  createInterface({ input: stream }).on("line", onLine);
}

function get(
  instance: Instance,
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
 * `process`, no environment, outbound network blocked unless allow-listed, heap and private memory capped. Calls go
 * straight to the worker's own socket (a call lost to a stale kept-alive socket is sent again). After a failed or
 * timed-out call the process is restarted if it no longer answers its health check (a crash, an endless loop), so
 * one resource cannot stall another; a process that still answers keeps serving the calls in flight on it.
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

  async function start(): Promise<Instance> {
    configureWorkerd(memory);
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
      handleRuntimeStdio(out: Readable, err: Readable) {
        drain(out, (line) => log?.debug({ resource: p.name, line: line.slice(0, 500) }, "sandbox stdout"));
        drain(err, (line) => {
          if (stderr.length < 50) stderr.push(line.slice(0, 500));
          log?.debug({ resource: p.name, line: line.slice(0, 500) }, "sandbox stderr");
        });
      },
    });
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
      const instance = { mf, url, agent: new Agent({ keepAlive: true, maxSockets: 256 }), generation: ++generation };
      const health = await get(instance, HEALTH_PATH, 5_000);
      if (health?.status !== 200) {
        instance.agent.destroy();
        throw new SandboxStartError(health?.text || "the module does not answer");
      }
      return instance;
    } catch (error) {
      await mf.dispose().catch(() => undefined);
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
    log?.warn({ resource: p.name, why }, "restarting the sandbox");
    from.agent.destroy();
    current = from.mf
      .dispose()
      .catch(() => undefined)
      .then(start);
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
        return await callSandbox(running.agent, new URL("/call", running.url), request);
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
    async dispose() {
      disposed = true;
      const running = await current.catch(() => undefined);
      running?.agent.destroy();
      await running?.mf.dispose().catch(() => undefined);
    },
  };
}
