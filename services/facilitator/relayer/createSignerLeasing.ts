import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import type { Address } from "viem";
import type { Lane, SignerLanes } from "./createSignerLanes.ts";
import { holds } from "./createSignerLanes.ts";

/** Where an instance leases its signers (store/signerLeases.ts, bound to the instance's holder id). */
export type SignerLeaseBook = {
  /** Marks this instance live for `leaseMs`; returns how many instances are live. */
  beat(leaseMs: number): Promise<number>;
  /** Takes (free or expired) or renews the lease of `address` for `leaseMs`; returns whether this instance holds it. */
  hold(address: Address, leaseMs: number): Promise<boolean>;
  /** Gives up the leases of `addresses`, or every lease and the beat when omitted. */
  release(addresses?: readonly Address[]): Promise<void>;
};

export type SignerLeasingParameters = {
  book: SignerLeaseBook;
  lanes: SignerLanes;
  /** How long a lease lasts (SIGNER_LEASE_SECONDS, in ms); it is renewed every third of it. */
  leaseMs: number;
  /** Called when a lease was taken: queued debits may go out on it. */
  onTaken: () => void;
  logger?: Pick<Logger, "warn">;
};

/**
 * Leases the relayer's signers among the instances sharing RELAYER_KEYS, so no two send from one signer (and race
 * its nonces): each instance beats, takes at most its share of the debit signers (the pool over the live instances,
 * rounded up), gives back what is above its share (a busy one takes no new debit and goes once nothing of it is in flight), and renews what it holds every third of the
 * lease. A lane is sent from only until two thirds of its lease from before the renewal, so a lease that could not be
 * renewed stops sends before it expires. A signer taken (first, or again, or from a dead instance whose lease expired)
 * reads its nonce from the chain's pending count before its first send. The strike signer, when not a debit signer,
 * is leased too (whoever holds it records the strikes).
 * @example const leasing = createSignerLeasing({ book, lanes, leaseMs: 30_000, onTaken: queue.kick }); await leasing.start()
 */
export function createSignerLeasing(p: SignerLeasingParameters) {
  const debit = [...new Set(p.lanes.debit)];
  const others = p.lanes.all().filter((lane) => !debit.includes(lane));
  for (const lane of p.lanes.all()) lane.heldUntil = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();

  /** Takes or renews `lane`'s lease; true when held. */
  async function hold(lane: Lane, startedAt: number): Promise<boolean> {
    const held = await p.book.hold(lane.account.address, p.leaseMs);
    if (stopped || !held) {
      lane.heldUntil = 0;
      lane.yielding = false;
      return false;
    }
    const taken = !holds(lane);
    // Another instance may have sent from it since this one last did: its next send reads the pending count.
    if (taken) {
      lane.nonces.resync();
      lane.yielding = false;
    }
    lane.heldUntil = startedAt + (p.leaseMs * 2) / 3;
    if (taken) p.onTaken();
    return true;
  }

  /** One round of beat, give back, renew and take; returns how many instances are live. */
  async function tick(): Promise<number> {
    const startedAt = Date.now();
    const live = await p.book.beat(p.leaseMs);
    const share = Math.ceil(debit.length / live);
    const busy = (lane: Lane) => lane.broadcasting || lane.sending > 0 || lane.nonces.waiting();
    // Above the share, idle signers are given back first; a busy one stops taking new debits and is given back
    // once nothing of it is in flight, so no replacement of this instance's races the next holder.
    const held = debit.filter(holds).sort((a, b) => Number(busy(b)) - Number(busy(a)));
    const keep = held.slice(0, share);
    const surplus = held.slice(share);
    const surrendered = surplus.filter((lane) => !busy(lane));
    for (const lane of keep) lane.yielding = false;
    for (const lane of surplus) lane.yielding = true;
    for (const lane of surrendered) {
      lane.heldUntil = 0;
      lane.yielding = false;
    }
    if (surrendered.length > 0) await p.book.release(surrendered.map((lane) => lane.account.address));
    let count = 0;
    for (const lane of keep) if (await hold(lane, startedAt)) count++;
    for (const lane of surplus) if (!surrendered.includes(lane)) await hold(lane, startedAt);
    for (const lane of debit) {
      if (count >= share) break;
      if (!held.includes(lane) && (await hold(lane, startedAt))) count++;
    }
    for (const lane of others) await hold(lane, startedAt);
    return live;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick()
        .then(() => undefined)
        .catch((error) =>
          p.logger?.warn({ err: (error as Error).message }, "relayer could not renew its signer leases"),
        )
        .finally(schedule);
    }, p.leaseMs / 3);
  }

  return {
    /**
     * Takes this instance's first leases, then keeps them renewed. When the pool has a signer for every live instance,
     * waits (at most one lease) for one of its own, which another instance gives back at its next renewal.
     */
    async start(): Promise<void> {
      const deadline = Date.now() + p.leaseMs;
      for (;;) {
        const live = await tick().catch((error) => {
          p.logger?.warn({ err: (error as Error).message }, "relayer could not take its signer leases");
          return Number.POSITIVE_INFINITY;
        });
        if (p.lanes.anyOpen() || debit.length < live || Date.now() >= deadline) break;
        await sleep(p.leaseMs / 6);
      }
      schedule();
    },
    /**
     * Stops renewing and sending; gives the leases back unless `release` is false (a test's dead instance: its leases
     * then expire).
     */
    async stop(release = true): Promise<void> {
      if (stopped) return;
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      for (const lane of p.lanes.all()) lane.heldUntil = 0;
      if (release) await p.book.release();
    },
  };
}
