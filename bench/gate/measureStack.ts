import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address } from "viem";
import { createPublicClient, http } from "viem";
import { createProjectionsClient, waitForIndexedBlock } from "../../services/projections/createProjectionsClient.ts";
import { defined } from "../../services/protocol/defined.ts";
import { runStack, stackPorts } from "../../testkit/stack/runStack.ts";
import type { StackCpu } from "../../testkit/stack/stackCpu.ts";
import { cpuSince, readStackCpu } from "../../testkit/stack/stackCpu.ts";
import type { DebitsOnChain } from "./awaitDebits.ts";
import { awaitDebits } from "./awaitDebits.ts";
import type { LoadResult } from "./benchLoad.ts";
import { fundBenchBuyers } from "./fundBenchBuyers.ts";
import { runLoad } from "./runLoad.ts";
import { signBenchPayments } from "./signBenchPayments.ts";

/** The chain of a stack under measurement and its token, for what the bench measures beside it. */
export type StackChain = { rpcUrl: string; token: Address };

/** How one `npm start` stack is measured. */
export type MeasureStackParameters = {
  mining: "auto" | "interval";
  /** Passed to the stack as SETTLEMENT (the facilitator's setting); unset leaves the facilitator's default. */
  settlement?: string;
  /** Every store on a PostgreSQL server of the stack's own (`npm start -- --postgres`) instead of PGlite. */
  postgres?: boolean;
  /** Paid calls at one connection for the added latency (after a short warm-up). */
  latencyCalls: number;
  /**
   * Paid calls at the first connection count right after start, then a tenth as many at one connection (one buyer),
   * each checked on chain but not counted: the first thousands of calls after a start, and the first hundreds in
   * sequence after a load, run while V8 still compiles (and recompiles) the hot paths of every process.
   */
  warmUpCalls: number;
  /** Paid calls per loaded run, and the connection counts of those runs. */
  paidCalls: number;
  connections: readonly number[];
  buyers: number;
  cap: bigint;
  body: string;
  /** The same echo handler unpaid (no gate): the baseline the added latency is measured against. */
  unpaidUrl: string;
  /** How long the relayer may take to mine the last debit after the last answer. */
  drainTimeoutMs: number;
  /**
   * Called while the stack is up and idle, just before its latency runs (with 1) and before each loaded run (with its
   * connection count): the bench measures the gate alone there, so that both sides of a ratio share the minute.
   */
  beside?: (connections: number, chain: StackChain) => Promise<void>;
  log: (line: string) => void;
  /**
   * Called at once with a synchronous kill of the stack's process group that also removes its directory, so that an
   * interrupted bench leaves nothing behind.
   */
  onCleanup: (cleanup: () => void) => void;
};

/** One load against the stack: the answers, the debits on chain and the CPU the stack's processes used meanwhile. */
export type StackLoad = {
  connections: number;
  run: LoadResult;
  onChain: DebitsOnChain;
  /** CPU seconds per part, from the load's first request until its last debit was on chain and indexed. */
  cpu: StackCpu;
  /** Seconds the facilitator's embedded store ran statements over the same window (its /metrics); null on PostgreSQL. */
  storeBusySeconds: number | null;
  windowSeconds: number;
};

/** The facilitator's `facilitator_store_busy_seconds_total` (null: absent, a store on PostgreSQL). */
async function readStoreBusySeconds(facilitatorUrl: string): Promise<number | null> {
  const metrics = await (await fetch(`${facilitatorUrl}/metrics`)).text();
  const busy = /^facilitator_store_busy_seconds_total (\S+)$/m.exec(metrics)?.[1];
  return busy === undefined ? null : Number(busy);
}

/** What one stack measured. */
export type StackMeasurement = {
  mining: "auto" | "interval";
  settlement: string;
  startSeconds: number;
  /** The warm-up loads, in order (none without warm-up). */
  warmUp: StackLoad[];
  unpaid: LoadResult;
  /** One connection, one buyer paying in sequence (its escrow state shared across its verifies). */
  latency: StackLoad;
  /** One connection, each call from the next of every buyer in turn: many agents, each paying now and then. */
  latencyManyBuyers: StackLoad;
  loads: StackLoad[];
};

const WARM_UP = 10;

/**
 * Starts `npm start` (services/stack/start.ts in its own process group, free ports, a temporary STACK_DIR) with the
 * given chain mining, funds fresh buyers, pre-signs every payment, then pays the stack's own hosted echo sample: one
 * connection for latency, then each loaded run; after each, checks on chain that every 200 has exactly one debit and
 * that nothing else was debited. Stops the stack (and removes its directory) whatever happens.
 * @example const auto = await measureStack({ mining: "auto", latencyCalls: 200, paidCalls: 2000, connections: [32, 128], ... })
 */
export async function measureStack(p: MeasureStackParameters): Promise<StackMeasurement> {
  const stackDir = mkdtempSync(join(tmpdir(), "bench-gate-stack-"));
  // As root the server runs as another user, who must be able to pass through the directory to its data.
  if (p.postgres) chmodSync(stackDir, 0o711);
  const ports = await stackPorts({ postgres: p.postgres });
  const settings: Record<string, string> = { STACK_DIR: stackDir, ...ports, CHAIN_MINING: p.mining };
  if (p.settlement) settings.SETTLEMENT = p.settlement;
  const args = p.postgres ? ["--postgres"] : [];
  p.log(
    `starting npm start${args.map((a) => ` -- ${a}`).join("")} (CHAIN_MINING=${p.mining}, SETTLEMENT=${p.settlement ?? "unset"}) in ${stackDir}`,
  );
  const began = performance.now();
  let running: Awaited<ReturnType<typeof runStack>> | undefined;
  // Until the stack is up, start.ts stops itself when the bench goes away (it watches its parent).
  p.onCleanup(() => {
    running?.kill();
    rmSync(stackDir, { recursive: true, force: true });
  });
  try {
    running = await runStack(settings, { direct: true, shippedLimits: true, args });
    const startSeconds = (performance.now() - began) / 1000;
    const { stack, child } = running;
    const stackPid = defined(child.pid, "the stack's pid");
    const echo = defined(
      stack.resources.find((r) => r.slug === "echo"),
      "the echo sample in stack.json",
    );
    const callUrl = `${echo.resourceUrl}/call`;
    const chainClient = createPublicClient({ transport: http(stack.rpcUrl) });
    const indexer = createProjectionsClient(stack.indexerUrl);
    // Until the indexer has the chain's head, so that no load's CPU includes indexing left over from before it.
    const indexed = async () =>
      waitForIndexedBlock(indexer, await chainClient.getBlockNumber({ cacheTime: 0 }), {
        timeoutMs: p.drainTimeoutMs,
        intervalMs: 100,
      });
    p.log(`ready in ${startSeconds.toFixed(1)} s; funding ${p.buyers} buyers`);

    // Every paid load, in order: [connections, calls]. One connection is one agent paying in sequence (one buyer),
    // except the latency run over every buyer in turn; loaded runs spread over every buyer.
    const warmUps = (
      [
        [Math.min(p.connections[0] ?? 1, p.warmUpCalls), p.warmUpCalls],
        [1, Math.ceil(p.warmUpCalls / 10)],
      ] as [number, number][]
    ).filter(([, calls]) => calls > 0);
    const plan: [number, number][] = [
      [1, WARM_UP],
      ...warmUps,
      [1, p.latencyCalls],
      ...p.connections.map((c): [number, number] => [c, p.paidCalls]),
    ];
    const callsAt = (one: boolean) => plan.reduce((sum, [c, n]) => sum + ((c === 1) === one ? n : 0), 0);
    const sequential = callsAt(true);
    const loaded = callsAt(false) + p.latencyCalls;
    const buyers = await fundBenchBuyers({
      rpcUrl: stack.rpcUrl,
      token: stack.contracts.token,
      escrow: stack.contracts.escrow,
      count: p.buyers,
      deposit: p.cap * BigInt(Math.ceil(loaded / p.buyers) + sequential + 4),
    });
    p.log(`signing ${sequential + loaded} unique payments`);
    const sign = (from: typeof buyers, count: number, firstNonceIndex: number) =>
      signBenchPayments({
        buyers: from,
        escrow: stack.contracts.escrow,
        resourceId: echo.resourceId,
        cap: p.cap,
        count,
        firstNonceIndex,
      });
    // The first buyer signs both: its payments in sequence take its first bitmap indexes, the spread ones those after.
    const [inSequence, spread] = await Promise.all([
      sign(buyers.slice(0, 1), sequential, 0),
      sign(buyers, loaded, sequential),
    ]);
    // One connection takes the one buyer's payments in order, a loaded run (or `manyBuyers`) the spread ones.
    const pools = [inSequence, spread].map((payments) => ({ payments, used: 0 }));
    const take = (connections: number, count: number, manyBuyers: boolean) => {
      const pool = defined(pools[connections === 1 && !manyBuyers ? 0 : 1], "a payment pool");
      const slice = {
        headers: pool.payments.headers.slice(pool.used, pool.used + count),
        keys: pool.payments.keys.slice(pool.used, pool.used + count),
      };
      pool.used += count;
      return slice;
    };

    const load = async (connections: number, count: number, manyBuyers = false): Promise<StackLoad> => {
      const { headers, keys } = take(connections, count, manyBuyers);
      await indexed();
      const fromBlock = (await chainClient.getBlockNumber({ cacheTime: 0 })) + 1n;
      // Scraped before the CPU is read and after it is read again, so the scrapes' own work is not counted.
      const storeBefore = await readStoreBusySeconds(stack.facilitatorUrl);
      const cpuBefore = readStackCpu(stackPid);
      const started = performance.now();
      const run = await runLoad({ url: callUrl, connections, amount: count, body: p.body, payments: headers });
      const refused = Object.entries(run.statusCodes).filter(([code]) => code.startsWith("4"));
      if (refused.length)
        throw new Error(
          `the stack refused the bench's payments (${refused.map(([code, n]) => `${n} × ${code}`).join(", ")} of ${count} paid calls at ${connections} connection(s)): the figures would measure refusals`,
        );
      if (new Set(run.paidIndices).size !== run.paidIndices.length)
        throw new Error(
          `the load generator sent a payment twice (${run.paidIndices.length} answers 200 for ${new Set(run.paidIndices).size} payments)`,
        );
      const paid = run.paidIndices.map((i) => defined(keys[i], `payment ${i}`));
      const onChain = await awaitDebits({
        rpcUrl: stack.rpcUrl,
        escrow: stack.contracts.escrow,
        resourceId: echo.resourceId,
        fromBlock,
        sent: keys,
        paid,
        timeoutMs: p.drainTimeoutMs,
      });
      await indexed();
      const cpu = cpuSince(cpuBefore, readStackCpu(stackPid));
      const storeAfter = await readStoreBusySeconds(stack.facilitatorUrl);
      const storeBusySeconds = storeBefore === null || storeAfter === null ? null : storeAfter - storeBefore;
      const windowSeconds = (performance.now() - started) / 1000;
      p.log(
        `${connections} connection(s): ${paid.length}/${count} × 200, ${run.rps.toFixed(0)} calls/s, p50 ${run.p50.toFixed(1)} ms; ${onChain.debits} debits in ${onChain.transactions} transactions, all on chain ${onChain.drainedMs.toFixed(0)} ms after the last answer`,
      );
      return { connections, run, onChain, cpu, storeBusySeconds, windowSeconds };
    };

    p.log(`warm-up: ${WARM_UP} paid calls, 1 connection (checked on chain, not reported)`);
    await load(1, WARM_UP);
    const warmUp: StackLoad[] = [];
    for (const [connections, calls] of warmUps) {
      p.log(`warm-up: ${calls} paid calls, ${connections} connection(s) (checked on chain, reported apart)`);
      warmUp.push(await load(connections, calls));
    }
    const besideChain: StackChain = { rpcUrl: stack.rpcUrl, token: stack.contracts.token };
    await p.beside?.(1, besideChain);
    p.log(`unpaid echo: ${p.latencyCalls * 2} calls, 1 connection`);
    const unpaid = await runLoad({
      url: p.unpaidUrl,
      connections: 1,
      amount: p.latencyCalls * 2,
      body: p.body,
      payments: null,
    });
    p.log(`paid through the stack: ${p.latencyCalls} calls, 1 connection`);
    const latency = await load(1, p.latencyCalls);
    p.log(`paid through the stack: ${p.latencyCalls} calls, 1 connection, ${p.buyers} buyers in turn`);
    const latencyManyBuyers = await load(1, p.latencyCalls, true);
    const loads: StackLoad[] = [];
    for (const connections of p.connections) {
      await p.beside?.(connections, besideChain);
      p.log(`paid through the stack: ${p.paidCalls} calls, ${connections} connections`);
      loads.push(await load(connections, p.paidCalls));
    }
    return {
      mining: p.mining,
      settlement: p.settlement ?? "",
      startSeconds,
      warmUp,
      unpaid,
      latency,
      latencyManyBuyers,
      loads,
    };
  } finally {
    p.log("stopping the stack");
    if (running && !(await running.stop().catch(() => false))) running.kill();
    rmSync(stackDir, { recursive: true, force: true });
  }
}
