import { existsSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { processCpuSeconds } from "./readProcessStat.ts";

/** When a sandbox process counts as stuck. */
export type SandboxWatchdogLimits = {
  /** How often the process's CPU time is read from /proc. */
  tickMs: number;
  /** CPU time the process may burn that no call in flight accounts for; past it, the process is stuck. */
  idleCpuMs: number;
  /** How often the process is sent a health probe, busy or idle. */
  healthIntervalMs: number;
  /** How long a probe may wait for its answer: the longest one call may hold the process's thread. */
  probeTimeoutMs: number;
};

/** Default limits: CPU read every 500 ms, 500 ms of unaccounted CPU, a probe every second answered within 2 s. */
export const DEFAULT_SANDBOX_WATCHDOG: SandboxWatchdogLimits = {
  tickMs: 500,
  idleCpuMs: 500,
  healthIntervalMs: 1_000,
  probeTimeoutMs: 2_000,
};

/** CPU a call in flight accounts for, per millisecond of it: the isolate's thread and as much again of V8's helpers. */
const CPU_PER_CALL_MS = 2;

/** Unaccounted CPU that drains away on its own, per millisecond: 1% of a core, the runtime's own housekeeping. */
const CPU_DRAIN_PER_MS = 0.01;

/** What the watchdog watches: one sandbox process, how to probe it, and whom to tell when it is stuck. */
export type WatchSandboxProcessParameters = {
  /** The workerd process; undefined watches nothing but the probes. */
  pid: number | undefined;
  /** Resolves true when the process answered a health probe within `timeoutMs`. */
  probe(timeoutMs: number): Promise<boolean>;
  /** Called at most once, when the process must be killed and started again, with the reason. */
  onStuck(why: string): void;
  limits?: Partial<SandboxWatchdogLimits> | undefined;
};

/** A running watchdog: `call` wraps each call sent to the process, `stop` ends the watch. */
export type SandboxWatchdog = {
  call<T>(work: () => Promise<T>): Promise<T>;
  stop(): void;
};

const procfs = existsSync("/proc/self/stat");

/**
 * Watches one sandbox process for work that outlives its calls. Every tick it reads the process's CPU time from
 * /proc (what the process really burned, which no code inside it can fake): CPU beyond what the calls in flight
 * account for goes into an account that drains by 1% of a core, and an account past `idleCpuMs` (a handler that
 * spins after answering, or between calls) makes the process stuck. Every `healthIntervalMs` it sends a health probe
 * that the shard's dispatcher answers, no creator code involved; no answer within `probeTimeoutMs` (a handler holding
 * the process's one thread, or a process wedged while idle) makes it stuck too, unless this process's own event loop
 * was held for half that time meanwhile (then the next probe decides), as does a process that has exited.
 * The watch is per process, not per handler: `call` wraps every call, load and unload sent to it.
 * @example const watchdog = watchSandboxProcess({ pid, probe, onStuck: (why) => restart(why) }); await watchdog.call(() => send())
 */
export function watchSandboxProcess(p: WatchSandboxProcessParameters): SandboxWatchdog {
  const limits = { ...DEFAULT_SANDBOX_WATCHDOG, ...p.limits };
  const pid = procfs ? p.pid : undefined;
  const cpuMs = (at: number) => processCpuSeconds(at) * 1000;
  let inFlight = 0;
  let busySince = 0;
  let busyMs = 0;
  let lastTick = performance.now();
  let lastCpu = 0;
  let unaccounted = 0;
  let lastProbe = lastTick;
  let probing = false;
  let stopped = false;

  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  const stuck = (why: string) => {
    if (stopped) return;
    stop();
    p.onStuck(why);
  };

  const readCpu = (): boolean => {
    if (pid === undefined) return true;
    const now = performance.now();
    let cpu: number;
    try {
      cpu = cpuMs(pid);
    } catch {
      stuck("the sandbox process exited");
      return false;
    }
    const inCall = busyMs + (inFlight > 0 ? now - Math.max(busySince, lastTick) : 0);
    unaccounted = Math.max(
      0,
      unaccounted + (cpu - lastCpu) - CPU_PER_CALL_MS * inCall - CPU_DRAIN_PER_MS * (now - lastTick),
    );
    busyMs = 0;
    lastCpu = cpu;
    lastTick = now;
    if (unaccounted <= limits.idleCpuMs) return true;
    stuck(`it burned ${Math.round(unaccounted)} ms of CPU that no call in flight accounts for`);
    return false;
  };

  // A probe whose wait this process could not run for half its time (its own event loop held: a long synchronous
  // task of any part of the host) says nothing of the sandbox: its answer may sit unread while its timeout fires. The
  // next probe decides. Held: the loop's delay sampled during the wait, or a timeout that fired a quarter late (a
  // hold from the probe's very start, before the first sample).
  const probe = () => {
    probing = true;
    const began = performance.now();
    const hostDelay = monitorEventLoopDelay({ resolution: 20 });
    hostDelay.enable();
    void p.probe(limits.probeTimeoutMs).then((answered) => {
      hostDelay.disable();
      probing = false;
      lastProbe = performance.now();
      const hostHeld =
        hostDelay.max / 1e6 > limits.probeTimeoutMs / 2 || lastProbe - began > limits.probeTimeoutMs * 1.25;
      if (!answered && !hostHeld) stuck(`it did not answer its health check within ${limits.probeTimeoutMs} ms`);
    });
  };

  const timer = setInterval(() => {
    if (!readCpu()) return;
    if (!probing && performance.now() - lastProbe >= limits.healthIntervalMs) probe();
  }, limits.tickMs);
  timer.unref();
  if (pid !== undefined) {
    try {
      lastCpu = cpuMs(pid);
    } catch {
      queueMicrotask(() => stuck("the sandbox process exited"));
    }
  }

  return {
    async call(work) {
      if (inFlight++ === 0) busySince = performance.now();
      try {
        return await work();
      } finally {
        if (--inFlight === 0) busyMs += performance.now() - Math.max(busySince, lastTick);
      }
    },
    stop,
  };
}
