import { STACK_PARTS } from "../../testkit/stack/stackCpu.ts";
import type { LoadResult } from "./benchLoad.ts";
import type { StackLoad, StackMeasurement } from "./measureStack.ts";

/** The figures of the first paid path, measured before this benchmark existed (one side-by-side run, same machine). */
export const BASELINE = {
  stockCallsPerSecond: 63,
  oursCallsPerSecond32IndexerPaused: 224,
  oursCallsPerSecond32: 130,
  oursCallsPerSecond128: 148,
  stockAddedP50Ms: 38,
  oursAddedP50Ms: 42,
  /** 10.8 CPU seconds of Ponder over 2,000 paid calls. */
  oursPonderMsPerCall: (10.8 * 1000) / 2000,
} as const;

/** The paid path's targets (the "target" column of docs/benchmarks.md's headline figures). */
export const TARGET = {
  addedP50AutoMs: 5,
  addedP50IntervalMs: 10,
  /** Paid calls/s with 64 buyers, committed settlement and the indexer live, by connections. */
  callsPerSecond: { 32: 1_000, 128: 1_200 } as Record<number, number>,
  /** CPU of the whole stack per paid call under load. */
  stackCpuMsPerCall: 1.8,
  manyBuyersP50Ms: 3,
  manyBuyersP99Ms: 15,
} as const;

/** The gate alone: the echo handler unpaid, and paid through the gate with a stub facilitator. */
export type GateAloneMeasurement = {
  unpaid: LoadResult;
  latency: LoadResult;
  loads: { connections: number; run: LoadResult }[];
};

export type GateBenchReportParameters = {
  machine: string;
  loadAverage: number;
  body: string;
  price: bigint;
  buyers: number;
  settlement: string;
  alone: GateAloneMeasurement;
  stacks: StackMeasurement[];
  /** An extra stack run with SETTLEMENT=confirmed, for comparison, when asked for. */
  confirmed?: StackMeasurement;
  totalSeconds: number;
};

const ms = (n: number) => `${n.toFixed(1)} ms`;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
const mode = (s: StackMeasurement) => (s.mining === "auto" ? "automine" : "500 ms blocks");
const codes = (r: LoadResult) =>
  Object.entries(r.statusCodes)
    .map(([c, n]) => `${n} × ${c}`)
    .join(", ") + (r.errors ? `, ${r.errors} errors` : "");
const row = (name: string, connections: number, r: LoadResult) =>
  `| ${name} | ${connections} | ${codes(r)} | ${fmt(r.rps)} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} |`;
const table = (header: string, rows: string[]) => [header, header.replace(/[^|]+/g, "---"), ...rows].join("\n");

/** Added latency of a paid call at one connection: paid minus unpaid, at p50 and p95. */
export function addedLatency(paid: LoadResult, unpaid: LoadResult) {
  return { p50: paid.p50 - unpaid.p50, p95: paid.p95 - unpaid.p95 };
}

const ponderMsPerCall = (l: StackLoad) => (l.cpu.indexer * 1000) / Math.max(l.onChain.debits, 1);
const at = (s: StackMeasurement, connections: number) => s.loads.find((l) => l.connections === connections);

/**
 * The "Gate" section of docs/benchmarks.md, written by `npm run bench:gate`.
 * @example writeBenchSection("gate", gateBenchReport({ ... }))
 */
export function gateBenchReport(p: GateBenchReportParameters): string {
  const all = [...p.stacks, ...(p.confirmed ? [p.confirmed] : [])];
  const aloneAt = (c: number) => p.alone.loads.find((l) => l.connections === c)?.run;
  const callRows = [
    row("unpaid: the echo sandbox behind a plain Node server", 1, p.alone.unpaid),
    row("gate alone: paid through the gate, stub facilitator", 1, p.alone.latency),
    ...p.alone.loads.map((l) => row("gate alone: paid through the gate, stub facilitator", l.connections, l.run)),
    ...all.flatMap((s) => {
      const name = `\`npm start\`, ${mode(s)}${s === p.confirmed ? ", SETTLEMENT=confirmed" : ""}`;
      return [
        ...s.warmUp.map((w, i) =>
          row(
            `${name}: warm-up ${i + 1}, ${fmt(w.run.paidIndices.length)} paid calls ${i === 0 ? "right after start" : "in sequence"} (not counted)`,
            w.connections,
            w.run,
          ),
        ),
        row(`${name}: unpaid echo (baseline, just before)`, 1, s.unpaid),
        row(`${name}: paid through the stack's hosted echo, one buyer in sequence`, 1, s.latency.run),
        row(
          `${name}: paid through the stack's hosted echo, ${fmt(p.buyers)} buyers in turn`,
          1,
          s.latencyManyBuyers.run,
        ),
        ...s.loads.map((l) => row(`${name}: paid through the stack's hosted echo`, l.connections, l.run)),
      ];
    }),
  ];

  const summaryRows: string[] = [];
  const aloneAdded = addedLatency(p.alone.latency, p.alone.unpaid);
  summaryRows.push(
    `| added latency, 1 connection, p50 / p95 | ${p.stacks
      .map((s) => {
        const a = addedLatency(s.latency.run, s.unpaid);
        return `${ms(a.p50)} / ${ms(a.p95)}`;
      })
      .join(
        " | ",
      )} | ${ms(aloneAdded.p50)} / ${ms(aloneAdded.p95)} | ${BASELINE.oursAddedP50Ms} ms | ${BASELINE.stockAddedP50Ms} ms | ≤ ${TARGET.addedP50AutoMs} ms automine, ≤ ${TARGET.addedP50IntervalMs} ms 500 ms blocks |`,
    `| added latency, 1 connection, ${fmt(p.buyers)} buyers in turn, p50 / p99 | ${p.stacks
      .map((s) => {
        const paid = s.latencyManyBuyers.run;
        return `${ms(paid.p50 - s.unpaid.p50)} / ${ms(paid.p99 - s.unpaid.p99)}`;
      })
      .join(" | ")} | – | – | – | ≤ ${TARGET.manyBuyersP50Ms} ms / ≤ ${TARGET.manyBuyersP99Ms} ms |`,
  );
  for (const c of [32, 128]) {
    if (!p.stacks.some((s) => at(s, c))) continue;
    const before = c === 32 ? BASELINE.oursCallsPerSecond32 : BASELINE.oursCallsPerSecond128;
    const alone = aloneAt(c);
    summaryRows.push(
      `| paid calls/s, ${c} connections, indexer live | ${p.stacks
        .map((s) => {
          const l = at(s, c);
          return l
            ? `${fmt(l.run.rps)} (${ratio(l.run.rps, before)} ours before, ${ratio(l.run.rps, BASELINE.stockCallsPerSecond)} stock${alone ? `, ${ratio(l.run.rps, alone.rps)} the gate alone` : ""})`
            : "–";
        })
        .join(
          " | ",
        )} | ${alone ? fmt(alone.rps) : "–"} | ${before} | ${BASELINE.stockCallsPerSecond} | ≥ ${fmt(TARGET.callsPerSecond[c] ?? 0)} |`,
    );
  }
  const cpuMsPerCall = (l: StackMeasurement["loads"][number]) =>
    (Object.values(l.cpu).reduce((a, b) => a + b, 0) * 1000) / Math.max(l.run.paidIndices.length, 1);
  summaryRows.push(
    `| whole-stack CPU per paid call (load start to last debit mined) | ${p.stacks
      .map((s) => s.loads.map((l) => `${ms(cpuMsPerCall(l))} at ${l.connections}`).join(", "))
      .join(" | ")} | – | – | – | ≤ ${TARGET.stackCpuMsPerCall} ms |`,
  );
  summaryRows.push(
    `| Ponder CPU per paid call (load start to last debit mined) | ${p.stacks
      .map((s) => s.loads.map((l) => `${ms(ponderMsPerCall(l))} at ${l.connections}`).join(", "))
      .join(" | ")} | – | ${ms(BASELINE.oursPonderMsPerCall)} (10.8 s over 2,000 calls) | – | – |`,
  );

  const loadsOf = all.flatMap((s) =>
    [s.latency, s.latencyManyBuyers, ...s.loads].map((l) => ({
      s,
      l,
      label: `${mode(s)}${s === p.confirmed ? ", confirmed" : ""}, ${l.connections}${l === s.latencyManyBuyers ? ` (${p.buyers} buyers)` : ""}`,
    })),
  );
  const cpuRows = [
    ...[...STACK_PARTS, "other" as const].map(
      (part) => `| ${part} | ${loadsOf.map(({ l }) => l.cpu[part].toFixed(1)).join(" | ")} |`,
    ),
    `| **all** | ${loadsOf
      .map(({ l }) =>
        Object.values(l.cpu)
          .reduce((a, b) => a + b, 0)
          .toFixed(1),
      )
      .join(" | ")} |`,
    `| window (s) | ${loadsOf.map(({ l }) => l.windowSeconds.toFixed(1)).join(" | ")} |`,
    `| Ponder ms per paid call | ${loadsOf.map(({ l }) => ponderMsPerCall(l).toFixed(2)).join(" | ")} |`,
    ...(["facilitator", "host", "workerd", "chain", "marketplace"] as const).map(
      (part) =>
        `| ${part} ms per paid call | ${loadsOf.map(({ l }) => ((l.cpu[part] * 1000) / Math.max(l.run.paidIndices.length, 1)).toFixed(2)).join(" | ")} |`,
    ),
    `| **all, ms per paid call** | ${loadsOf.map(({ l }) => cpuMsPerCall(l).toFixed(2)).join(" | ")} |`,
  ];
  const chainRows = loadsOf.map(
    ({ l, label }) =>
      `| ${label} | ${l.run.paidIndices.length} | ${l.onChain.debits} | ${l.onChain.transactions} | ${(l.onChain.debits / Math.max(l.onChain.transactions, 1)).toFixed(1)} | ${fmt(Number(l.onChain.amount))} = ${l.onChain.debits} × ${p.price}${l.onChain.amount === BigInt(l.onChain.debits) * p.price ? "" : " (MISMATCH)"} | ${fmt(l.onChain.drainedMs)} ms |`,
  );

  return `
## Gate

Command: \`npm run bench:gate\` (bench/gate/bench.ts), ${fmt(p.totalSeconds)} s in all. Machine: ${p.machine}; 1-minute load average
${p.loadAverage.toFixed(1)} when the run started. The machine is shared, so figures move by tens of percent between runs.

What runs: the whole \`npm start\` stack as shipped (services/stack/start.ts as a child process on free ports and a
temporary STACK_DIR: the Hardhat EDR chain, the facilitator on PGlite, the host with the gate and the samples in
workerd, the marketplace, the Ponder indexer on PGlite, live throughout, and the studio), started afresh for each of
${p.stacks.map((s) => `\`CHAIN_MINING=${s.mining}\``).join(" and ")} (\`interval\`: a block every 500 ms, the test network's block time);
\`SETTLEMENT\` ${p.settlement}. Each stack first serves a warm-up load (its row says how many calls, at how many
connections; checked on chain like every load, not counted toward the targets): a stack runs for hours, and its first
thousands of paid calls after a start run while V8 still compiles every process's hot paths, so they measure the
start, not the stack. Paid calls go to the stack's own hosted echo sample (\`/r/echo/call\`), each with a
pre-signed unique payment: at one connection all from one buyer (an agent paying in sequence), in the loaded runs
spread over ${p.buyers} buyers funded on the stack's chain before the load; request body
\`${p.body}\`, so every paid call costs ${p.price} base units. The gate alone is the echo sample in workerd behind a
gate in the bench process whose facilitator is a stub (the gate's own work: no chain, no store). The load generator
(autocannon, latencies timed per request, calls/s counted from the first request to the last answer) runs in its own
process. Added latency is the paid call at one connection minus an unpaid call of the same handler (the echo source
in workerd behind a plain Node server, no gate), each percentile taken separately. A verify reads no chain
state: it reserves against the escrow book the facilitator keeps in its store from the escrow's events
(docs/protocol.md, "The escrow book"), so a buyer's first call and its hundredth cost the same.

${table("| scenario | connections | answers | calls/s | p50 | p95 | p99 |", callRows)}

Summary, with ratios against the figures of the first paid path (same machine, one side-by-side run):

${table(`| figure | ${p.stacks.map((s) => `\`npm start\`, ${mode(s)}`).join(" | ")} | gate alone | ours before | stock x402 | target |`, summaryRows)}

CPU seconds of each process of the stack (summed per part from /proc/<pid>/stat; workerd is the host's sandboxes) from
each load's first request until its last debit was on chain and the indexer had indexed it (each load starts once the
indexer has the chain's head, so no load carries indexing left over from before it). At one connection the indexer's figure per paid call is
mostly its work per block and its polling, spread over few calls, not a cost each call adds:

${table(`| part | ${loadsOf.map(({ label }) => label).join(" | ")} |`, cpuRows)}

On chain, checked after each load from the escrow's \`Debited\` events (polled until every 200 had its debit; the run
fails on any 200 without exactly one debit or any debit without a 200):

${table("| load (mining, connections) | answered 200 | `Debited` events | transactions | debits per transaction | amount debited | last debit after the last answer |", chainRows)}
`;
}
