import type { Logger } from "pino";
import type { Handler } from "../gate/handler.ts";
import type { SandboxMemory } from "./configureWorkerd.ts";
import type { Shard, ShardEndpoint } from "./createShard.ts";
import { createShard } from "./createShard.ts";
import type { SandboxWatchdogLimits } from "./watchSandboxProcess.ts";

/** Options of the solo runner: the sandbox limits of its process. */
export type SoloRunnerParameters = {
  memory?: SandboxMemory | undefined;
  watchdog?: Partial<SandboxWatchdogLimits> | undefined;
  startTimeoutMs?: number | undefined;
  logger?: Logger | undefined;
};

/** A handler's code as the solo runner needs it: its source and its network allow-list. */
export type SoloHandler = Pick<ShardEndpoint, "source"> & { allowNetwork?: readonly string[] | undefined };

/** Runs one handler's code at a time, alone in a workerd process, each time in a fresh isolate. */
export type SoloRunner = {
  /**
   * Waits for its turn (unless `until` aborts first: undefined), then runs `work` with a handler bound to a fresh
   * isolate of `handler`'s code in a workerd process where no other code runs until `work` has settled. Undefined as
   * well when that process cannot be started (nothing ran).
   */
  alone<T>(handler: SoloHandler, work: (run: Handler) => Promise<T>, until: AbortSignal): Promise<T | undefined>;
  /** The solo process serving now, if any: its name, pid and restarts. */
  status(): { name: string; pid: number | undefined; restarts: number } | undefined;
  close(): Promise<void>;
};

function turnOrAbort(previous: Promise<void>, until: AbortSignal): Promise<boolean> {
  if (until.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const aborted = () => resolve(false);
    until.addEventListener("abort", aborted, { once: true });
    void previous.then(() => {
      until.removeEventListener("abort", aborted);
      resolve(!until.aborted);
    });
  });
}

/**
 * Creates the runner that gives a handler's code a workerd process to itself, one job at a time (in order of
 * arrival): the evidence of whether the code itself fails, free of every other creator's code. Each job loads the
 * handler in a fresh isolate (under a key of its own) and unloads it afterwards; a job whose call failed, met a
 * restart, or was still running when the job ended (a timeout) leaves the process for good (it may still run that
 * code), and the next job starts a fresh one.
 * The process is started on first use and again whenever a job needs another network allow-list. The host runs a
 * failed call's sample request here (the strike decision), and the calls that a neighbour's stall or crash
 * interrupted.
 * @example const result = await solo.alone(handler, (run) => run(call), AbortSignal.timeout(5_000))
 */
export function createSoloRunner(p: SoloRunnerParameters): SoloRunner {
  let tail: Promise<void> = Promise.resolve();
  let current: { network: string; shard: Promise<Shard>; started?: Shard } | undefined;
  let serial = 0;
  let closed = false;

  const retire = (shard: Promise<Shard>) => void shard.then((s) => s.close()).catch(() => undefined);

  function shardFor(allowNetwork: readonly string[]): Promise<Shard> {
    const network = [...new Set(allowNetwork)].sort().join(",");
    if (current?.network === network) return current.shard;
    if (current) retire(current.shard);
    const shard = createShard({
      name: `solo-${++serial}`,
      allowNetwork,
      capacity: 1,
      memory: p.memory,
      watchdog: p.watchdog,
      startTimeoutMs: p.startTimeoutMs,
      logger: p.logger,
    });
    const entry: NonNullable<typeof current> = { network, shard };
    shard.then(
      (started) => {
        entry.started = started;
      },
      () => {
        if (current === entry) current = undefined;
      },
    );
    current = entry;
    return shard;
  }

  async function run<T>(handler: SoloHandler, work: (run: Handler) => Promise<T>): Promise<T | undefined> {
    let shard: Shard;
    try {
      shard = await shardFor(handler.allowNetwork ?? []);
    } catch (error) {
      p.logger?.error({ err: (error as Error).message }, "the solo sandbox did not start");
      return undefined;
    }
    const endpoint = { key: `solo.${++serial}`, source: handler.source };
    const restarts = shard.restarts();
    let clean = true;
    let calls = 0;
    const runner: Handler = async (call) => {
      calls++;
      try {
        return await shard.call(endpoint, call);
      } catch (error) {
        clean = false;
        throw error;
      } finally {
        calls--;
      }
    };
    try {
      return await work(runner);
    } catch (error) {
      clean = false;
      throw error;
    } finally {
      if (clean && calls === 0 && shard.restarts() === restarts && !closed) await shard.unload(endpoint.key);
      else if (current?.started === shard) {
        current = undefined;
        await shard.close();
      }
    }
  }

  return {
    async alone(handler, work, until) {
      if (closed) return undefined;
      let release = () => {};
      const mine = new Promise<void>((resolve) => {
        release = resolve;
      });
      const previous = tail;
      tail = previous.then(() => mine);
      try {
        if (!(await turnOrAbort(previous, until)) || closed) return undefined;
        return await run(handler, work);
      } finally {
        release();
      }
    },
    status() {
      const shard = current?.started;
      return shard ? { name: shard.name, pid: shard.pid(), restarts: shard.restarts() } : undefined;
    },
    async close() {
      closed = true;
      if (current) await current.shard.then((shard) => shard.close()).catch(() => undefined);
      current = undefined;
    },
  };
}
