import { expect } from "chai";
import type { StackCpu } from "../../testkit/stack/stackCpu.ts";
import type { LoadResult } from "./benchLoad.ts";
import type { AloneLoad, GateAloneMeasurement } from "./gateBenchReport.ts";
import { gateBenchReport, gateHeadline, gateRatios } from "./gateBenchReport.ts";
import type { StackLoad, StackMeasurement } from "./measureStack.ts";

/** A load's result: `calls` answered 200 at `rps`, with the given percentiles (ms). */
function result(calls: number, rps: number, latency: { p50: number; p95: number; p99: number }): LoadResult {
  return {
    rps,
    seconds: calls / rps,
    ...latency,
    mean: latency.p50,
    statusCodes: { "200": calls },
    errors: 0,
    paidIndices: Array.from({ length: calls }, (_, i) => i),
  };
}

const flat = { p50: 1, p95: 2, p99: 3 };

/** The gate alone's or the unpaid echo's load: `calls` answered in `cpuSeconds` of CPU. */
function alone(calls: number, rps: number, cpuSeconds: number, latency = flat): AloneLoad {
  const run = result(calls, rps, latency);
  return { run: { ...run, paidIndices: [] }, cpuSeconds };
}

/** A load of the stack: `calls` paid calls at `rps`, its CPU split over two parts. */
function stackLoad(connections: number, calls: number, rps: number, cpuSeconds: number, latency = flat): StackLoad {
  const cpu = {
    chain: 0,
    indexer: cpuSeconds / 4,
    facilitator: (cpuSeconds * 3) / 4,
    host: 0,
    workerd: 0,
    marketplace: 0,
    studio: 0,
    orchestrator: 0,
    postgres: 0,
    other: 0,
  } satisfies StackCpu;
  return {
    connections,
    run: result(calls, rps, latency),
    onChain: { debits: calls, transactions: 1, amount: 0n, drainedMs: 0 },
    cpu,
    storeBusySeconds: cpuSeconds / 4,
    windowSeconds: calls / rps,
  };
}

const gateAlone: GateAloneMeasurement = {
  unpaid: alone(1000, 1000, 0.5, { p50: 0.8, p95: 1.4, p99: 3.0 }),
  latency: alone(500, 600, 0.5, { p50: 1.3, p95: 3.4, p99: 5.3 }),
  loads: [
    { connections: 32, unpaid: alone(3000, 4000, 1.5), paid: alone(3000, 2000, 2.4) },
    { connections: 128, unpaid: alone(3000, 5000, 1.2), paid: alone(3000, 3000, 2.1) },
  ],
};

const stack: StackMeasurement = {
  mining: "interval",
  settlement: "",
  startSeconds: 20,
  warmUp: [],
  unpaid: result(1000, 1100, { p50: 0.6, p95: 2.0, p99: 4.3 }),
  latency: stackLoad(1, 500, 250, 2.5, { p50: 3.3, p95: 8.2, p99: 14.0 }),
  latencyManyBuyers: stackLoad(1, 500, 370, 1.9, { p50: 2.1, p95: 4.9, p99: 9.9 }),
  loads: [stackLoad(32, 6000, 1000, 12), stackLoad(128, 6000, 1200, 9), stackLoad(256, 6000, 1300, 9)],
};

describe("gateRatios", function () {
  it("sets the stack as shipped against the gate alone and the unpaid echo of the same run, connection count by connection count", function () {
    const ratios = gateRatios(gateAlone, stack);
    // 256 connections: the gate alone was not loaded there, so there is nothing to set it against.
    expect(ratios.loads.map((l) => l.connections)).to.deep.equal([32, 128]);
    const [at32, at128] = ratios.loads;
    expect(at32?.callsPerSecond).to.deep.equal({ shipped: 1000, gateAlone: 2000, unpaid: 4000 });
    expect(at128?.callsPerSecond).to.deep.equal({ shipped: 1200, gateAlone: 3000, unpaid: 5000 });
    // CPU per call answered 200: the stack's summed over its parts, the gate alone's and the unpaid echo's as measured.
    expect(at32?.cpuMsPerCall.shipped).to.be.closeTo(2, 1e-9);
    expect(at32?.cpuMsPerCall.gateAlone).to.be.closeTo(0.8, 1e-9);
    expect(at32?.cpuMsPerCall.unpaid).to.be.closeTo(0.5, 1e-9);
    expect(at128?.cpuMsPerCall.shipped).to.be.closeTo(1.5, 1e-9);
    expect(at128?.cpuMsPerCall.gateAlone).to.be.closeTo(0.7, 1e-9);
  });

  it("takes the added latency percentile by percentile, the stack's over its own unpaid baseline and the gate alone's over the unpaid echo", function () {
    const ratios = gateRatios(gateAlone, stack);
    const close = (actual: { p50: number; p99: number }, expected: { p50: number; p99: number }) => {
      expect(actual.p50).to.be.closeTo(expected.p50, 1e-9);
      expect(actual.p99).to.be.closeTo(expected.p99, 1e-9);
    };
    close(ratios.manyBuyers.shipped, { p50: 1.5, p99: 5.6 });
    close(ratios.oneBuyer.shipped, { p50: 2.7, p99: 9.7 });
    close(ratios.manyBuyers.gateAlone, { p50: 0.5, p99: 2.3 });
  });

  it("counts the CPU per call answered 200, not per request sent", function () {
    const refused = { ...gateAlone.loads[0]?.paid.run, statusCodes: { "200": 1500, "402": 1500 } } as LoadResult;
    const halfPaid: GateAloneMeasurement = {
      ...gateAlone,
      loads: [{ connections: 32, unpaid: alone(3000, 4000, 1.5), paid: { run: refused, cpuSeconds: 2.4 } }],
    };
    expect(gateRatios(halfPaid, stack).loads[0]?.cpuMsPerCall.gateAlone).to.be.closeTo(1.6, 1e-9);
  });
});

describe("gateBenchReport", function () {
  /** The report of one run of `stacks` beside the gate alone, on a made-up machine. */
  const reportOf = (stacks: StackMeasurement[], postgres = false) =>
    gateBenchReport({
      date: "2026-12-01",
      machine: "2 cores",
      loadAverage: { start: 1, end: 1 },
      body: "{}",
      price: 10200n,
      buyers: 64,
      settlement: "",
      alone: [gateAlone],
      stacks,
      postgres,
      totalSeconds: 100,
    });

  it("gives the time the facilitator's embedded store ran statements per paid call, and a dash for a store on PostgreSQL", function () {
    const onPostgres = { ...stackLoad(256, 6000, 1300, 9), storeBusySeconds: null };
    const report = reportOf([{ ...stack, loads: [stackLoad(32, 6000, 1000, 12), onPostgres] }]);
    // A quarter of each load's CPU seconds, over its calls: 2.5 s / 500, 1.9 s / 500, 12 s / 6,000.
    expect(report.split("\n")).to.include(
      "| of the facilitator's, its embedded store's statements, ms per paid call | 1.25 | 0.95 | 0.50 | – |",
    );
    expect(report).not.to.match(/^\| postgres/m);
  });

  it("names a run with --postgres as such, with its server's CPU per paid call in place of the embedded store's", function () {
    const onServer = (l: StackLoad): StackLoad => ({
      ...l,
      cpu: { ...l.cpu, facilitator: l.cpu.facilitator / 2, postgres: l.cpu.facilitator / 2 },
      storeBusySeconds: null,
    });
    const report = reportOf(
      [
        {
          ...stack,
          latency: onServer(stackLoad(1, 500, 250, 4)),
          latencyManyBuyers: onServer(stackLoad(1, 500, 370, 2)),
          loads: [onServer(stackLoad(32, 6000, 1000, 12))],
        },
      ],
      true,
    );
    const lines = report.split("\n");
    expect(lines).to.include("## Gate on PostgreSQL");
    expect(report).to.include("Command: `BENCH_GATE_POSTGRES=1 npm run bench:gate`");
    expect(lines.some((l) => l.startsWith("| paid calls/s, on PostgreSQL ÷ the gate alone, 32 connections | 0.50×"))).to
      .be.true;
    expect(report).not.to.include("as shipped");
    // Three eighths of each load's CPU seconds, over its calls: 1.5 s / 500, 0.75 s / 500, 4.5 s / 6,000.
    expect(lines).to.include("| postgres ms per paid call | 3.00 | 1.50 | 0.75 |");
    expect(report).not.to.include("its embedded store's statements, ms per paid call");
  });
});

describe("gateHeadline", function () {
  it("prints each ratio with its two sides and its target, and the added latency with the gate alone's beside it", function () {
    const lines = gateHeadline([gateAlone], [stack], 64).split("\n");
    expect(lines[0]).to.equal("| figure | `npm start`, 500 ms blocks | target |");
    expect(lines).to.include(
      "| paid calls/s, as shipped ÷ the gate alone, 32 connections | 0.50× (1,000 / 2,000) | ≥ 0.8× |",
    );
    expect(lines).to.include(
      "| paid calls/s, as shipped ÷ the gate alone, 128 connections | 0.40× (1,200 / 3,000) | – |",
    );
    expect(lines).to.include(
      "| paid calls/s, as shipped ÷ the unpaid echo, 32 connections | 0.25× (1,000 / 4,000) | – |",
    );
    expect(lines).to.include(
      "| CPU per paid call, the whole stack ÷ the gate alone, 32 connections | 2.50× (2.00 ms / 0.80 ms) | ≤ 1.5× |",
    );
    expect(lines).to.include(
      "| added latency, 1 connection, 64 buyers in turn, p50 / p99 | 1.5 / 5.6 ms (the gate alone 0.5 / 2.3 ms) | ≤ 3 ms / ≤ 15 ms |",
    );
  });
});

describe("the stock x402 stack beside the stack", function () {
  const withStock: GateAloneMeasurement = {
    ...gateAlone,
    stock: {
      latency: alone(40, 2, 0.4, { p50: 520.8, p95: 560, p99: 575.3 }),
      loads: [{ connections: 32, paid: alone(1000, 50, 10) }],
    },
  };

  it("sets the stack as shipped against the stock stack at each connection count both were loaded at, and its latency over the same unpaid echo", function () {
    const ratios = gateRatios(withStock, stack);
    expect(ratios.loads.map((l) => l.callsPerSecond.stock)).to.deep.equal([50, undefined]);
    expect(ratios.stock?.p50).to.be.closeTo(520, 1e-9);
    expect(ratios.stock?.p99).to.be.closeTo(572.3, 1e-9);
    expect(gateRatios(gateAlone, stack).stock, "not measured").to.equal(undefined);
  });

  it("prints the ratio over the stock stack with its target at 32 connections, and nothing of it when it was not measured", function () {
    const lines = gateHeadline([withStock], [stack], 64).split("\n");
    expect(lines).to.include(
      "| paid calls/s, as shipped ÷ the stock x402 stack, 32 connections | 20.00× (1,000 / 50) | ≥ 15× |",
    );
    expect(lines).to.include("| paid calls/s, as shipped ÷ the stock x402 stack, 128 connections | – | – |");
    expect(lines).to.include(
      "| added latency, 1 connection, one buyer in sequence, p50 / p99: the stock x402 stack | 520.0 / 572.3 ms (as shipped 2.7 / 9.7 ms) | – |",
    );
    expect(gateHeadline([gateAlone], [stack], 64)).not.to.contain("stock");
  });
});
