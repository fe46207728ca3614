import { Agent, request as httpRequest } from "node:http";
import type { Logger } from "pino";
import type { HandlerCall, HandlerResult } from "../gate/handler.ts";
import { BaseError } from "../protocol/errors.ts";
import { callSandbox } from "./callSandbox.ts";
import type { SandboxMemory } from "./configureWorkerd.ts";
import { configureWorkerd, DATA_MB_PER_HANDLER, DEFAULT_SANDBOX_MEMORY } from "./configureWorkerd.ts";
import { SHARD_PATHS } from "./shardDispatcher.ts";
import type { WorkerdProcess } from "./startWorkerd.ts";
import { startWorkerd } from "./startWorkerd.ts";
import type { SandboxWatchdog, SandboxWatchdogLimits } from "./watchSandboxProcess.ts";
import { watchSandboxProcess } from "./watchSandboxProcess.ts";

/** A handler could not be loaded (syntax error, no `fetch`, a top level that never finishes). */
export class SandboxStartError extends BaseError {
  override name = "SandboxStartError";
}

/**
 * A load cut short by its shard's restart (a stall, a crash): the module may be to blame (a top level that never
 * finishes), or the process stalled for another reason (a machine too busy to answer the probe in time).
 */
export class SandboxRestartedError extends SandboxStartError {
  override name = "SandboxRestartedError";
}

/**
 * A call that was in flight on a process that was killed or died (a stall, a crash, memory exhausted), not at its own
 * time limit: whatever the handler did in it died with the process. `suspects` are the restart's (see
 * `ShardRestart`): when they name other handlers too, the call may have been the victim of one of them.
 */
export class SandboxInterruptedError extends BaseError {
  override name = "SandboxInterruptedError";
  readonly suspects: readonly string[];
  constructor(message: string, suspects: readonly string[]) {
    super(message);
    this.suspects = suspects;
  }
}

/** A handler as a shard loads it: a key naming this version of it, and its module source. */
export type ShardEndpoint = { key: string; source: string };

/** Why a shard's process was killed and started again, and which handlers may be to blame. */
export type ShardRestart = {
  why: string;
  /** The killed process. */
  pid: number | undefined;
  /**
   * The handlers that can have run code since the process last answered a probe: those with a call or a load under
   * way (a call lasts until the host has read its answer's last byte), and those sent one since.
   */
  suspects: string[];
  /** The handlers that were loaded in the killed process. */
  loaded: string[];
};

/** Options of one shard. */
export type CreateShardParameters = {
  name: string;
  /** Outbound network of every handler of the shard (workerd allow-list); empty or absent: none. */
  allowNetwork?: readonly string[] | undefined;
  memory?: SandboxMemory | undefined;
  /** How many handlers it is meant to hold; sizes the process's RLIMIT_DATA. */
  capacity?: number | undefined;
  watchdog?: Partial<SandboxWatchdogLimits> | undefined;
  /** How long starting the process, or loading one handler, may take. */
  startTimeoutMs?: number | undefined;
  logger?: Logger | undefined;
  /** Told each time the process is killed and started again (watchdog, crash, a failed call it no longer answers). */
  onRestart?: ((restart: ShardRestart) => void) | undefined;
};

/** One workerd process holding many handlers, each in an isolate of its own, restarted whole when it is stuck. */
export type Shard = {
  readonly name: string;
  /** Runs one call of a handler, loading it first when this process does not hold it. */
  call(endpoint: ShardEndpoint, call: HandlerCall): Promise<HandlerResult>;
  /** @throws {SandboxStartError} */
  load(endpoint: ShardEndpoint): Promise<void>;
  unload(key: string): Promise<void>;
  /** The handlers loaded (or loading) in the process serving now. */
  loaded(): string[];
  /** Calls or loads of `key` under way. */
  busy(key: string): boolean;
  ready(): Promise<boolean>;
  restarts(): number;
  /** The pid of the workerd process serving now (undefined while it starts). */
  pid(): number | undefined;
  /** The loopback address of the workerd process serving now (undefined while it starts). */
  url(): URL | undefined;
  close(): Promise<void>;
};

type Instance = {
  workerd: WorkerdProcess;
  agent: Agent;
  generation: number;
  loads: Map<string, Promise<void>>;
  watchdog: SandboxWatchdog;
  /** When the last answered probe was sent. */
  probedAt: number;
  /** Set when this process is killed or has died: why, and whom it names. */
  ended?: ShardRestart;
  /** Whether the process reported that it ran out of memory (V8's or the kernel's refusal, on its stderr). */
  outOfMemory: boolean;
};

/** What workerd and V8 write when an allocation is refused (the isolate's heap limit, or the process's RLIMIT_DATA). */
const OUT_OF_MEMORY = /out of memory|allocation failed|Cannot allocate memory/i;

type Answer = { status: number; text: string };

function send(
  instance: { workerd: WorkerdProcess; agent: Agent },
  path: string,
  body: unknown,
  timeoutMs: number,
): Promise<Answer | undefined> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = httpRequest(
      new URL(path, instance.workerd.url),
      {
        method: payload ? "POST" : "GET",
        agent: instance.agent,
        timeout: timeoutMs,
        headers: payload ? { "content-type": "application/json", "content-length": String(payload.length) } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", () => resolve(undefined));
      },
    );
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(undefined));
    req.end(payload);
  });
}

function messageOf(answer: Answer): string {
  try {
    return String((JSON.parse(answer.text) as { error?: unknown }).error ?? answer.text);
  } catch {
    return answer.text || `the shard answered ${answer.status}`;
  }
}

/**
 * Starts a shard: one workerd process (see `configureWorkerd`, `startWorkerd`) whose dispatcher loads handlers on
 * demand, each as a dynamic worker in an isolate of its own (no bindings, the shard's outbound or no network, the
 * heap limit), and routes each call to its handler by key. A watchdog (`watchSandboxProcess`) reads the process's
 * CPU time and probes it; when the process burns CPU that no call accounts for, stops answering its probe, or exits,
 * it is killed and a fresh process started (tens of milliseconds), which loads each handler again on its next call.
 * After a failed call or load the process is probed at once and restarted if it does not answer within 1 s. Each
 * restart names the handlers that may be to blame (`onRestart`), so that the caller can move them elsewhere.
 * @throws {SandboxStartError} when workerd itself does not start.
 * @example const shard = await createShard({ name: 'shard-0' }); await shard.call({ key, source }, call)
 */
export async function createShard(p: CreateShardParameters): Promise<Shard> {
  const memory = p.memory ?? DEFAULT_SANDBOX_MEMORY;
  const startTimeoutMs = p.startTimeoutMs ?? 15_000;
  const configFile = configureWorkerd({ allowNetwork: p.allowNetwork ?? [], heapMb: memory.heapMb });
  const dataLimitMb = memory.dataLimitMb + Math.max(0, (p.capacity ?? 1) - 1) * DATA_MB_PER_HANDLER;
  const log = p.logger?.child({ shard: p.name });
  const inFlight = new Map<string, number>();
  const startedAt = new Map<string, number>();
  let generations = 0;
  let live = 0;
  let restarts = 0;
  let closed = false;
  let serving: Instance | undefined;

  async function track<T>(key: string, work: () => Promise<T>): Promise<T> {
    inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
    startedAt.set(key, performance.now());
    try {
      return await work();
    } finally {
      const left = (inFlight.get(key) ?? 1) - 1;
      if (left > 0) inFlight.set(key, left);
      else inFlight.delete(key);
    }
  }

  async function probe(instance: Instance, timeoutMs: number): Promise<boolean> {
    const probedAt = performance.now();
    const answer = await send(instance, SHARD_PATHS.health, undefined, timeoutMs);
    if (answer?.status !== 200) return false;
    instance.probedAt = probedAt;
    return true;
  }

  async function teardown(instance: Instance) {
    instance.watchdog.stop();
    instance.agent.destroy();
    await instance.workerd.kill();
  }

  async function start(): Promise<Instance> {
    let workerd: WorkerdProcess;
    let outOfMemory = false;
    try {
      workerd = await startWorkerd({
        configFile,
        dataLimitMb,
        startTimeoutMs,
        onLine: (line, stream) => {
          if (stream === "stderr" && OUT_OF_MEMORY.test(line)) outOfMemory = true;
          log?.debug({ line: line.slice(0, 500) }, `sandbox ${stream}`);
        },
      });
    } catch (error) {
      throw new SandboxStartError(`the sandbox process did not start: ${(error as Error).message}`);
    }
    const agent = new Agent({ keepAlive: true, maxSockets: 256 });
    const instance = {
      workerd,
      agent,
      generation: ++generations,
      loads: new Map(),
      probedAt: performance.now(),
      get outOfMemory() {
        return outOfMemory;
      },
    } as unknown as Instance;
    if (!(await probe(instance, startTimeoutMs))) {
      agent.destroy();
      await workerd.kill();
      throw new SandboxStartError("the sandbox process does not answer");
    }
    instance.watchdog = watchSandboxProcess({
      pid: workerd.pid,
      probe: (timeoutMs) => probe(instance, timeoutMs),
      onStuck: (why) => restart(instance, why),
      limits: p.watchdog,
    });
    void workerd.exited.then(() =>
      restart(instance, instance.outOfMemory ? "the sandbox process ran out of memory" : "the sandbox process exited"),
    );
    if (closed) {
      await teardown(instance);
      throw new SandboxStartError("the shard is closed");
    }
    live = instance.generation;
    serving = instance;
    return instance;
  }

  let current: Promise<Instance> = start();
  await current;

  function restart(from: Instance, why: string) {
    if (closed || from.generation !== live) return;
    live = 0;
    restarts++;
    serving = undefined;
    const suspects = new Set(inFlight.keys());
    for (const [key, at] of startedAt) if (at >= from.probedAt) suspects.add(key);
    const restart: ShardRestart = {
      why: from.outOfMemory && !why.includes("memory") ? `${why} (it ran out of memory)` : why,
      pid: from.workerd.pid,
      suspects: [...suspects],
      loaded: [...from.loads.keys()],
    };
    from.ended = restart;
    log?.warn(
      { why: restart.why, restarts, pid: from.workerd.pid, suspects: restart.suspects },
      "restarting the sandbox",
    );
    current = teardown(from).then(start);
    current.catch((error) => {
      if (!closed) log?.error({ err: (error as Error).message }, "the sandbox did not restart");
    });
    startedAt.clear();
    p.onRestart?.(restart);
  }

  async function instance(): Promise<Instance> {
    try {
      return await current;
    } catch (error) {
      if (closed) throw error;
      current = start();
      return current;
    }
  }

  /** Probes the process after a failed call or load, restarting it when it does not answer; resolves to its end, if it ended. */
  async function checkAfterFailure(running: Instance, why: string): Promise<ShardRestart | undefined> {
    if (running.ended) return running.ended;
    const health = await send(running, SHARD_PATHS.health, undefined, 1_000);
    if (health?.status !== 200) restart(running, why);
    return running.ended;
  }

  function load(running: Instance, endpoint: ShardEndpoint): Promise<void> {
    const existing = running.loads.get(endpoint.key);
    if (existing !== undefined) return existing;
    const loading = track(endpoint.key, async () => {
      const sent = performance.now();
      const answer = await running.watchdog.call(() => send(running, SHARD_PATHS.load, endpoint, startTimeoutMs));
      if (answer?.status === 200) return;
      if (answer === undefined) {
        const timedOut = !running.ended && performance.now() - sent >= startTimeoutMs;
        // Out of time: the module's own top level (the process is probed, and restarted if it stalls).
        const check = checkAfterFailure(running, "a handler's load left the process unresponsive");
        if (timedOut) throw new SandboxStartError(`the module did not finish loading within ${startTimeoutMs} ms`);
        // The process was restarted under the load (its watchdog), or its connection dropped (it died: the exit may
        // not be seen yet, so it is probed): say so, not that time ran out.
        const ended = await check;
        if (ended) throw new SandboxRestartedError(`the sandbox was restarted while the module loaded (${ended.why})`);
        throw new SandboxStartError("the module could not be loaded: the sandbox process dropped the connection");
      }
      throw new SandboxStartError(`the module could not be loaded: ${messageOf(answer)}`);
    });
    running.loads.set(endpoint.key, loading);
    loading.catch(() => {
      if (running.loads.get(endpoint.key) === loading) running.loads.delete(endpoint.key);
    });
    return loading;
  }

  async function callOnce(running: Instance, endpoint: ShardEndpoint, call: HandlerCall) {
    await load(running, endpoint);
    return track(endpoint.key, () =>
      running.watchdog.call(() =>
        callSandbox(running.agent, new URL("/call", running.workerd.url), endpoint.key, call),
      ),
    );
  }

  return {
    name: p.name,
    async call(endpoint, call) {
      const running = await instance();
      try {
        const result = await callOnce(running, endpoint, call);
        if (result) return result;
        running.loads.delete(endpoint.key);
        const again = await callOnce(running, endpoint, call);
        if (again) return again;
        throw new Error("the shard lost the handler twice");
      } catch (error) {
        if (error instanceof SandboxStartError) throw error;
        if (call.signal.aborted) {
          void checkAfterFailure(running, "a timed-out call left the process unresponsive");
          throw new Error("the handler did not answer in time");
        }
        const message = `the sandbox failed: ${(error as Error).message}`;
        const ended = await checkAfterFailure(running, `the sandbox process failed: ${(error as Error).message}`);
        if (ended) throw new SandboxInterruptedError(`${message} (${ended.why})`, ended.suspects);
        throw new Error(message);
      }
    },
    async load(endpoint) {
      await load(await instance(), endpoint);
    },
    async unload(key) {
      const running = serving;
      if (!running?.loads.has(key)) return;
      running.loads.delete(key);
      await running.watchdog.call(() => send(running, SHARD_PATHS.unload, { key }, 5_000));
    },
    loaded: () => [...(serving?.loads.keys() ?? [])],
    busy: (key) => inFlight.has(key),
    async ready() {
      try {
        const running = await Promise.race([
          current,
          new Promise<undefined>((resolve) => setTimeout(resolve, 1_000, undefined)),
        ]);
        return running !== undefined && (await send(running, SHARD_PATHS.health, undefined, 1_000))?.status === 200;
      } catch {
        return false;
      }
    },
    restarts: () => restarts,
    pid: () => serving?.workerd.pid,
    url: () => serving?.workerd.url,
    async close() {
      closed = true;
      const running = await current.catch(() => undefined);
      if (running) await teardown(running);
    },
  };
}
