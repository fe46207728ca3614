import type { Logger } from "pino";
import type { Handler, HandlerCall, HandlerResult } from "../gate/handler.ts";
import type { SandboxMemory } from "./configureWorkerd.ts";
import type { Shard, ShardEndpoint, ShardRestart } from "./createShard.ts";
import { createShard, SandboxInterruptedError, SandboxRestartedError } from "./createShard.ts";
import { createSoloRunner } from "./createSoloRunner.ts";
import type { SandboxWatchdogLimits } from "./watchSandboxProcess.ts";

/** How a host shares its workerd processes among handlers. */
export type SandboxPoolParameters = {
  memory?: SandboxMemory | undefined;
  watchdog?: Partial<SandboxWatchdogLimits> | undefined;
  /** Shards (workerd processes) that handlers without network share. */
  shards: number;
  /** Handlers one shard holds; past it, its least recently called idle handler is unloaded. */
  capacity: number;
  /** A handler not called for this long is unloaded (it loads again on its next call). */
  idleUnloadMs: number;
  /** How long handlers blamed for a stall stay in a quarantine shard, apart from the others. */
  quarantineMs: number;
  startTimeoutMs?: number | undefined;
  logger?: Logger | undefined;
};

/** A handler of the pool: a key naming this version of it, its slug (for logs), source, and network allow-list. */
export type PooledHandler = ShardEndpoint & { name: string; allowNetwork?: readonly string[] | undefined };

/** Where a handler stands: loaded or not, in which shard, how often its process was restarted, quarantined or not. */
export type PooledHandlerStatus = {
  loaded: boolean;
  shard: string | undefined;
  pid: number | undefined;
  restarts: number;
  quarantined: boolean;
};

/** One shard of the pool, as the pool reports it. */
export type PoolShardStatus = {
  name: string;
  kind: ShardKind;
  pid: number | undefined;
  loaded: number;
  restarts: number;
};

/** The host's workerd processes, and the handlers placed in them. */
export type SandboxPool = {
  /**
   * Loads a handler in the staging shard and unloads it again; a load cut short by the shard's restart is tried once
   * more in the fresh process, so a module is refused for a stall only when it stalls twice. @throws {SandboxStartError}
   */
  verify(handler: PooledHandler): Promise<void>;
  /** Loads a handler now, where its calls will run. @throws {SandboxStartError} */
  warm(handler: PooledHandler): Promise<void>;
  /**
   * The gate's handler: runs each call in the handler's shard, loading it there first when needed. A call that a
   * restart of a shard without network interrupted, naming other suspects too, runs once more alone (`alone`).
   */
  handler(handler: PooledHandler): Handler;
  /**
   * Runs `work` with the handler's code alone in a workerd process, in a fresh isolate, once its turn comes (unless
   * `until` aborts first: undefined); see `createSoloRunner`.
   */
  alone<T>(handler: PooledHandler, work: (run: Handler) => Promise<T>, until: AbortSignal): Promise<T | undefined>;
  /** Whether the handler's shard answers (true for a handler not loaded: its next call loads it). */
  ready(key: string): Promise<boolean>;
  unload(key: string): Promise<void>;
  status(key: string): PooledHandlerStatus;
  shards(): PoolShardStatus[];
  close(): Promise<void>;
};

type ShardKind = "pool" | "quarantine" | "staging" | "solo";

type Slot = {
  name: string;
  kind: ShardKind;
  allowNetwork: readonly string[];
  shard: Promise<Shard>;
  started: Shard | undefined;
  members: Set<string>;
};

const NO_NETWORK = "";

/**
 * How often `verify` loads a module whose loads its shard's restarts cut short. A stall may be the machine's (a probe
 * answered late on a starved machine restarts the shard too), so one stall is not enough to refuse a module; a module
 * whose top level never finishes stalls every time and is refused at the second.
 */
const VERIFY_ATTEMPTS = 2;

function networkKey(allow: readonly string[] | undefined): string {
  return [...new Set(allow ?? [])].sort().join(",");
}

/**
 * Shares a few workerd processes among many handlers. Handlers without network share `shards` pool shards, each new
 * handler going to the one holding fewest; each distinct network allow-list has a shard of its own. A shard holds at
 * most `capacity` handlers (its least recently called idle handler is unloaded to make room), and a handler idle for
 * `idleUnloadMs` is unloaded, to be loaded again (in milliseconds) on its next call: handlers nobody calls cost no
 * memory. When the watchdog restarts a shard, the handlers that may be to blame (see `ShardRestart.suspects`) move
 * together to a quarantine shard of their own for `quarantineMs`; the others load again in the fresh process on their
 * next call. A stall in a quarantine shard moves its suspects on again (or half of them, when all its handlers are
 * suspects), so a repeat offender ends up alone and takes down no one but itself. New code is first loaded in a
 * staging shard (`verify`), so a module whose top level never finishes stalls no one. One more process runs a
 * handler's code alone (`alone`, `createSoloRunner`): a failed call's sample request, and a call that another
 * handler's stall or crash interrupted.
 * @example const pool = createSandboxPool({ shards: 4, capacity: 400, idleUnloadMs: 900_000, quarantineMs: 3_600_000 })
 */
export function createSandboxPool(p: SandboxPoolParameters): SandboxPool {
  const log = p.logger;
  const slots = new Map<string, (Slot | undefined)[]>();
  const quarantines = new Set<Slot>();
  const placed = new Map<string, Slot>();
  const lastUsed = new Map<string, number>();
  const restarts = new Map<string, number>();
  const quarantined = new Map<string, number>();
  let staging: Slot | undefined;
  let serial = 0;
  let closed = false;
  const solo = createSoloRunner({
    memory: p.memory,
    watchdog: p.watchdog,
    startTimeoutMs: p.startTimeoutMs,
    logger: log,
  });

  function open(name: string, kind: ShardKind, allowNetwork: readonly string[], capacity: number): Slot {
    const slot: Slot = { name, kind, allowNetwork, members: new Set(), started: undefined } as unknown as Slot;
    slot.shard = createShard({
      name,
      allowNetwork,
      capacity,
      memory: p.memory,
      watchdog: p.watchdog,
      startTimeoutMs: p.startTimeoutMs,
      logger: log,
      onRestart: (restart) => restarted(slot, restart),
    });
    slot.shard.then(
      (shard) => {
        slot.started = shard;
        if (closed) void shard.close();
      },
      (error) => {
        log?.error({ shard: name, err: (error as Error).message }, "a sandbox shard did not start");
        forget(slot);
      },
    );
    return slot;
  }

  function forget(slot: Slot) {
    for (const key of slot.members) placed.delete(key);
    slot.members.clear();
    quarantines.delete(slot);
    if (staging === slot) staging = undefined;
    for (const list of slots.values()) {
      const index = list.indexOf(slot);
      if (index >= 0) list[index] = undefined;
    }
  }

  /** Places `keys` together in a new quarantine shard, until `until`. */
  function quarantine(keys: string[], allowNetwork: readonly string[], until: number): Slot {
    const slot = open(`quarantine-${++serial}`, "quarantine", allowNetwork, keys.length);
    quarantines.add(slot);
    for (const key of keys) {
      placed.get(key)?.members.delete(key);
      placed.set(key, slot);
      slot.members.add(key);
      quarantined.set(key, until);
    }
    return slot;
  }

  function move(keys: string[], allowNetwork: readonly string[]) {
    const until = Date.now() + p.quarantineMs;
    const slot = quarantine(keys, allowNetwork, until);
    log?.warn({ shard: slot.name, handlers: keys, until: new Date(until).toISOString() }, "handlers quarantined");
  }

  function restarted(slot: Slot, restart: ShardRestart) {
    for (const key of restart.loaded) restarts.set(key, (restarts.get(key) ?? 0) + 1);
    if (closed || slot.kind === "staging") return;
    const suspects = restart.suspects.filter((key) => slot.members.has(key));
    if (suspects.length === 0) return;
    if (slot.kind === "pool" || suspects.length < slot.members.size) return move(suspects, slot.allowNetwork);
    if (suspects.length > 1) return move(suspects.slice(0, Math.ceil(suspects.length / 2)), slot.allowNetwork);
    quarantined.set(suspects[0] as string, Date.now() + p.quarantineMs);
  }

  function poolSlot(allowNetwork: readonly string[]): Slot {
    const network = networkKey(allowNetwork);
    const list: (Slot | undefined)[] =
      slots.get(network) ?? Array.from({ length: network === NO_NETWORK ? p.shards : 1 }, () => undefined);
    slots.set(network, list);
    const size = (slot: Slot | undefined) => slot?.members.size ?? 0;
    let best = 0;
    for (let i = 1; i < list.length; i++) if (size(list[i]) < size(list[best])) best = i;
    let slot = list[best];
    if (!slot) {
      slot = open(network === NO_NETWORK ? `shard-${best}` : `network-${++serial}`, "pool", allowNetwork, p.capacity);
      list[best] = slot;
    }
    return slot;
  }

  function makeRoom(slot: Slot) {
    if (slot.members.size < p.capacity) return;
    let oldest: string | undefined;
    for (const key of slot.members) {
      if (slot.started?.busy(key)) continue;
      if (oldest === undefined || (lastUsed.get(key) ?? 0) < (lastUsed.get(oldest) ?? 0)) oldest = key;
    }
    if (oldest !== undefined) void unload(oldest);
  }

  function place(handler: PooledHandler): Slot {
    const existing = placed.get(handler.key);
    if (existing) return existing;
    const until = quarantined.get(handler.key) ?? 0;
    if (until > Date.now()) return quarantine([handler.key], handler.allowNetwork ?? [], until);
    const slot = poolSlot(handler.allowNetwork ?? []);
    makeRoom(slot);
    slot.members.add(handler.key);
    placed.set(handler.key, slot);
    return slot;
  }

  async function unload(key: string) {
    const slot = placed.get(key);
    placed.delete(key);
    lastUsed.delete(key);
    if (!slot) return;
    slot.members.delete(key);
    const shard = slot.started;
    if (slot.kind === "quarantine" && slot.members.size === 0) {
      quarantines.delete(slot);
      await shard?.close();
      return;
    }
    await shard?.unload(key);
  }

  async function run<T>(handler: PooledHandler, work: (shard: Shard) => Promise<T>): Promise<T> {
    if (closed) throw new Error("the sandbox pool is closed");
    lastUsed.set(handler.key, Date.now());
    return work(await place(handler).shard);
  }

  /**
   * A call interrupted by a restart that names other suspects too runs once more, alone: whatever it did died with the
   * process, and a handler without network has no other effect, so the buyer gets its answer unless this very call is
   * what kills a process. One that only this handler can be blamed for, or one with network (it may have reached an
   * outside service), fails.
   */
  async function call(handler: PooledHandler, handlerCall: HandlerCall): Promise<HandlerResult> {
    try {
      return await run(handler, (shard) => shard.call(handler, handlerCall));
    } catch (error) {
      const others = error instanceof SandboxInterruptedError && error.suspects.some((key) => key !== handler.key);
      if (!others || networkKey(handler.allowNetwork) !== NO_NETWORK || closed) throw error;
      log?.info({ handler: handler.name }, "a call a restart interrupted runs again, alone");
      const again = await solo.alone(handler, (alone) => alone(handlerCall), handlerCall.signal);
      if (again === undefined) throw error;
      return again;
    }
  }

  const all = (): Slot[] =>
    [...[...slots.values()].flat(), ...quarantines, staging].filter((slot): slot is Slot => slot !== undefined);

  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [key, slot] of placed) {
        if (slot.started?.busy(key)) continue;
        const idle = now - (lastUsed.get(key) ?? 0) >= p.idleUnloadMs;
        const released = slot.kind === "quarantine" && (quarantined.get(key) ?? 0) <= now;
        if (idle || released) void unload(key);
      }
      for (const [key, until] of quarantined) if (until <= now && !placed.has(key)) quarantined.delete(key);
    },
    Math.max(250, Math.min(p.idleUnloadMs / 4, 30_000)),
  );
  sweep.unref();

  return {
    async verify(handler) {
      if (closed) throw new Error("the sandbox pool is closed");
      staging ??= open("staging", "staging", [], 8);
      const shard = await staging.shard;
      for (let attempt = 1; ; attempt++) {
        const endpoint = { key: `verify.${++serial}`, source: handler.source };
        try {
          await shard.load(endpoint);
          return;
        } catch (error) {
          if (!(error instanceof SandboxRestartedError) || attempt === VERIFY_ATTEMPTS) throw error;
          log?.warn({ handler: handler.name, err: error.message }, "verifying a handler again in a fresh process");
        } finally {
          await shard.unload(endpoint.key);
        }
      }
    },
    warm: (handler) => run(handler, (shard) => shard.load(handler)),
    handler: (handler) => (handlerCall) => call(handler, handlerCall),
    alone: (handler, work, until) => solo.alone(handler, work, until),
    async ready(key) {
      const slot = placed.get(key);
      if (!slot) return !closed;
      return (await slot.shard.catch(() => undefined))?.ready() ?? false;
    },
    unload,
    status(key) {
      const slot = placed.get(key);
      return {
        loaded: slot?.started?.loaded().includes(key) ?? false,
        shard: slot?.name,
        pid: slot?.started?.pid(),
        restarts: restarts.get(key) ?? 0,
        quarantined: (quarantined.get(key) ?? 0) > Date.now(),
      };
    },
    shards() {
      const alone = solo.status();
      return [
        ...all().map((slot) => ({
          name: slot.name,
          kind: slot.kind,
          pid: slot.started?.pid(),
          loaded: slot.started?.loaded().length ?? 0,
          restarts: slot.started?.restarts() ?? 0,
        })),
        ...(alone ? [{ ...alone, kind: "solo" as const, loaded: 0 }] : []),
      ];
    },
    async close() {
      closed = true;
      clearInterval(sweep);
      await Promise.all([
        ...all().map((slot) => slot.shard.then((shard) => shard.close()).catch(() => undefined)),
        solo.close(),
      ]);
    },
  };
}
