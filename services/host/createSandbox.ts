import type { Logger } from "pino";
import type { Handler } from "../gate/handler.ts";
import type { SandboxMemory } from "./configureWorkerd.ts";
import { createShard, SandboxStartError } from "./createShard.ts";
import type { SandboxWatchdogLimits } from "./watchSandboxProcess.ts";

export { SandboxStartError };

/** Options of one handler's own sandbox. */
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

/**
 * Starts one handler in a workerd process of its own: a shard (`createShard`) that holds just this handler, in its
 * own isolate, with no filesystem, no `process`, an empty `env`, outbound network blocked unless allow-listed, heap
 * and private memory capped, and the shard's watchdog. The studio verifies drafts in it; the host runs many
 * handlers per process instead (`createSandboxPool`).
 * @throws {SandboxStartError} when the module cannot be loaded or has no `fetch`.
 * @example const sandbox = await createSandbox({ name: 'echo', source }); await gate({ handler: sandbox.handler })
 */
export async function createSandbox(p: CreateSandboxParameters): Promise<Sandbox> {
  const shard = await createShard({
    name: p.name,
    allowNetwork: p.allowNetwork,
    memory: p.memory,
    watchdog: p.watchdog,
    startTimeoutMs: p.startTimeoutMs,
    logger: p.logger,
  });
  const endpoint = { key: "handler", source: p.source };
  try {
    await shard.load(endpoint);
  } catch (error) {
    await shard.close();
    throw error;
  }
  return {
    handler: (call) => shard.call(endpoint, call),
    ready: () => shard.ready(),
    restarts: () => shard.restarts(),
    pid: () => shard.pid(),
    dispose: () => shard.close(),
  };
}
