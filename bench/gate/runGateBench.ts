/** What `npm run bench:gate` runs, once bench.ts has read its command line (see there). */
import { loadavg } from "node:os";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import echoSpec from "../../services/host/samples/echo.json" with { type: "json" };
import { meteredPrice } from "../../services/protocol/price.ts";
import { randomNonce } from "../../services/protocol/resourceId.ts";
import { devKey } from "../../services/stack/devAccounts.ts";
import { sleep } from "../../testkit/sleep.ts";
import { envCount, envCounts } from "../benchEnv.ts";
import { machineLine, writeBenchSection } from "../benchReport.ts";
import type { AloneLoad, GateAloneMeasurement, StockMeasurement } from "./gateBenchReport.ts";
import { gateBenchReport } from "./gateBenchReport.ts";
import type { StackChain, StackMeasurement } from "./measureStack.ts";
import { measureStack } from "./measureStack.ts";
import { killLoads, runLoad } from "./runLoad.ts";
import { signBenchPayments } from "./signBenchPayments.ts";
import type { GateAlone } from "./startGateAlone.ts";
import { startGateAlone } from "./startGateAlone.ts";
import type { StockX402 } from "./startStockX402.ts";
import { startStockX402 } from "./startStockX402.ts";

const list = (value: string) =>
  value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
const CONNECTIONS = envCounts("BENCH_GATE_CONNECTIONS", [32, 128]);
/** A load cannot have more connections than calls (autocannon refuses it, deep in a run). */
const MOST = Math.max(1, ...CONNECTIONS);
const PAID = envCount("BENCH_GATE_PAID", 6000, MOST);
/**
 * Calls of each run at one connection. A p99 is read from the slowest hundredth: of 500 calls (about 2.5 s, five
 * blocks at 500 ms) that is the five slowest, whichever blocks they happened to meet; 3,000 calls span about 30 blocks
 * (docs/benchmarks.md, "Gate").
 */
const LATENCY = envCount("BENCH_GATE_LATENCY", 3000);
const WARM_UP = envCount("BENCH_GATE_WARMUP", 4000, 0);
const MINING = list(process.env.BENCH_GATE_MINING ?? "interval") as ("auto" | "interval")[];
const BUYERS = envCount("BENCH_GATE_BUYERS", 64);
const STUB = envCount("BENCH_GATE_STUB", 3000, MOST);
const STOCK = envCount("BENCH_GATE_STOCK", 1000, 0);
const STOCK_LATENCY = envCount("BENCH_GATE_STOCK_LATENCY", 40);
/** The stock x402 stack's facilitator settles from the last development account, which no part of a stack uses. */
const STOCK_FACILITATOR_KEY = devKey(19);
/** Its buyers: a stock client pays from its token balance, one payment in flight per authorization. */
const STOCK_BUYERS = Array.from({ length: 8 }, () => privateKeyToAccount(generatePrivateKey()));
const CONFIRMED = process.env.BENCH_GATE_CONFIRMED === "1";
/** Every stack with `--postgres` (its stores on a PostgreSQL server of its own), reported in a section of its own. */
const POSTGRES = process.env.BENCH_GATE_POSTGRES === "1";
const SETTLEMENT = process.env.SETTLEMENT || undefined;
const DRAIN_TIMEOUT_MS = envCount("BENCH_GATE_DRAIN_SECONDS", 60) * 1000;
/** The echo sample's cap (its pricing `max`). */
const CAP = BigInt(echoSpec.pricing.max);
const BODY = '{"hello":"bench"}';
/** What every paid call costs: the echo sample's price for its answer to BODY (`{"echo": …}`). */
const PRICE = meteredPrice({
  base: echoSpec.pricing.base,
  perKB: echoSpec.pricing.perKB,
  computeMultiplier: echoSpec.computeMultiplier,
  cap: echoSpec.pricing.max,
  responseBytes: Buffer.byteLength(JSON.stringify({ echo: JSON.parse(BODY) })),
});
/** The gate alone talks to no chain: any escrow address and resource id will do. */
const ESCROW = privateKeyToAccount(generatePrivateKey()).address;
const RESOURCE_ID = randomNonce();

for (const mining of MINING)
  if (mining !== "auto" && mining !== "interval")
    throw new Error(`BENCH_GATE_MINING: "${mining}" is neither auto nor interval`);

const began = performance.now();
const loadAtStart = loadavg()[0] ?? 0;
const log = (line: string) =>
  process.stderr.write(`[bench:gate ${((performance.now() - began) / 1000).toFixed(1)}s] ${line}\n`);

// Nothing started here may outlive the bench: stacks (own process groups), load generators, the gate's sandbox.
const stackKills = new Set<() => void>();
let alone: GateAlone | undefined;
const killAll = () => {
  killLoads();
  for (const kill of stackKills) kill();
};
process.on("exit", killAll);
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    log(`${signal}: stopping everything`);
    killAll();
    void Promise.race([alone?.close(), sleep(3_000)]).finally(() => process.exit(130));
  });

/**
 * The gate alone beside one stack: `beside` measures the unpaid echo and the stub-facilitator gate at a connection
 * count (measureStack calls it just before its own runs at that count), `measurement` collects what it measured.
 */
function gateAloneBeside(gate: GateAlone, headers: string[]) {
  const measured = async (connections: number, amount: number, paid: boolean): Promise<AloneLoad> => {
    const before = gate.cpuSeconds();
    const run = await runLoad({
      url: paid ? gate.paidUrl : gate.unpaidUrl,
      connections,
      amount,
      body: BODY,
      payments: paid ? headers : null,
    });
    return { run, cpuSeconds: gate.cpuSeconds() - before };
  };
  let unpaid: AloneLoad | undefined;
  let latency: AloneLoad | undefined;
  const loads: GateAloneMeasurement["loads"] = [];
  let stock: StockX402 | undefined;
  let stockLatency: AloneLoad | undefined;
  const stockLoads: StockMeasurement["loads"] = [];
  // Signed just before each load: a stock client's authorization is valid for the route's maxTimeoutSeconds only.
  const stockMeasured = async (on: StockX402, connections: number, amount: number): Promise<AloneLoad> => {
    const payments = await on.sign(STOCK_BUYERS, amount, BODY);
    const before = on.cpuSeconds();
    const run = await runLoad({
      url: on.url,
      connections,
      amount,
      body: BODY,
      payments,
      paymentHeader: "PAYMENT-SIGNATURE",
    });
    // A refused stock payment is answered too (402, its settlement failed): only the calls it was paid for count.
    const paid = run.statusCodes["200"] ?? 0;
    if (paid < amount)
      log(
        `stock x402 stack: ${amount - paid} of ${amount} calls not answered 200 (${JSON.stringify(run.statusCodes)})`,
      );
    return { run: { ...run, rps: paid / run.seconds }, cpuSeconds: on.cpuSeconds() - before };
  };
  return {
    async beside(connections: number, chain: StackChain) {
      if (connections === 1) {
        if (STOCK > 0) {
          log(
            `stock x402 stack on the stack's chain: warm-up ${STOCK} paid calls (not reported), then ${STOCK_LATENCY} paid calls, 1 connection`,
          );
          const calls = STOCK + STOCK_LATENCY + STOCK * CONNECTIONS.length;
          stock = await startStockX402({
            ...chain,
            buyers: STOCK_BUYERS,
            funds: PRICE * BigInt(Math.ceil(calls / STOCK_BUYERS.length) + 1),
            price: PRICE,
            payTo: privateKeyToAccount(generatePrivateKey()).address,
            facilitatorKey: STOCK_FACILITATOR_KEY,
          });
          await stockMeasured(stock, MOST, STOCK);
          stockLatency = await stockMeasured(stock, 1, STOCK_LATENCY);
        }
        log(`gate alone: unpaid ${LATENCY * 2} calls and paid ${LATENCY} calls, 1 connection`);
        unpaid = await measured(1, LATENCY * 2, false);
        latency = await measured(1, LATENCY, true);
        return;
      }
      log(`gate alone: ${STUB} unpaid calls, then ${STUB} paid calls, ${connections} connections`);
      loads.push({
        connections,
        unpaid: await measured(connections, STUB, false),
        paid: await measured(connections, STUB, true),
      });
      if (stock) {
        log(`stock x402 stack: ${STOCK} paid calls, ${connections} connections`);
        stockLoads.push({ connections, paid: await stockMeasured(stock, connections, STOCK) });
      }
    },
    measurement(): GateAloneMeasurement {
      if (!unpaid || !latency) throw new Error("the gate alone was not measured beside the stack");
      return {
        unpaid,
        latency,
        loads,
        ...(stockLatency ? { stock: { latency: stockLatency, loads: stockLoads } } : {}),
      };
    },
    /** Stops the stock x402 stack, if one was started beside the stack. */
    async close() {
      await stock?.close();
      stock = undefined;
    },
    /** A load of each, not reported: the gate alone's JIT settles before anything of it is measured. */
    async warmUp() {
      await measured(1, 100, false);
      await measured(MOST, STUB, true);
    },
  };
}

async function main() {
  log("gate alone: the echo sandbox (workerd) and a gate with a stub facilitator");
  alone = await startGateAlone({ resourceId: RESOURCE_ID, escrow: ESCROW, token: ESCROW, cap: CAP });
  const gate = alone;
  // The stub facilitator accepts any payment again, so a few hundred signed ones serve every run.
  const { headers } = await signBenchPayments({
    buyers: Array.from({ length: 8 }, () => privateKeyToAccount(generatePrivateKey())),
    escrow: ESCROW,
    resourceId: RESOURCE_ID,
    cap: CAP,
    count: 500,
  });
  log(`gate alone: warm-up, 100 unpaid calls and ${STUB} paid calls (not reported)`);
  await gateAloneBeside(gate, headers).warmUp();

  const common = {
    latencyCalls: LATENCY,
    warmUpCalls: WARM_UP,
    paidCalls: PAID,
    buyers: BUYERS,
    cap: CAP,
    body: BODY,
    unpaidUrl: gate.unpaidUrl,
    drainTimeoutMs: DRAIN_TIMEOUT_MS,
    postgres: POSTGRES,
    log,
    onCleanup: (cleanup: () => void) => stackKills.add(cleanup),
  };
  const stacks: StackMeasurement[] = [];
  const besideStacks: GateAloneMeasurement[] = [];
  for (const mining of MINING) {
    const aloneBeside = gateAloneBeside(gate, headers);
    stacks.push(
      await measureStack({
        ...common,
        mining,
        settlement: SETTLEMENT,
        connections: CONNECTIONS,
        beside: aloneBeside.beside,
      }),
    );
    await aloneBeside.close();
    besideStacks.push(aloneBeside.measurement());
  }
  const confirmed = CONFIRMED
    ? await measureStack({
        ...common,
        mining: "interval",
        settlement: "confirmed",
        connections: CONNECTIONS.slice(0, 1),
      })
    : undefined;
  await gate.close();
  alone = undefined;

  const markdown = gateBenchReport({
    date: new Date().toISOString().slice(0, 10),
    machine: machineLine(),
    loadAverage: { start: loadAtStart, end: loadavg()[0] ?? 0 },
    machineNote: process.env.BENCH_GATE_MACHINE_NOTE || undefined,
    body: BODY,
    price: PRICE,
    buyers: BUYERS,
    settlement: SETTLEMENT ? `set to \`${SETTLEMENT}\`` : "unset (committed, the facilitator's default)",
    alone: besideStacks,
    stacks,
    confirmed,
    postgres: POSTGRES,
    totalSeconds: (performance.now() - began) / 1000,
  });
  writeBenchSection(POSTGRES ? "gate-postgres" : "gate", markdown);
  process.stdout.write(markdown);
}

main().then(
  () => process.exit(0),
  async (error: Error) => {
    process.stderr.write(`[bench:gate] FAILED: ${error.message}\n`);
    killAll();
    await alone?.close().catch(() => undefined);
    process.exit(1);
  },
);
