/**
 * `npm run bench:gate`: paid calls through the whole `npm start` stack as shipped (indexer live), with automine and
 * then with 500 ms blocks, every 200 checked against one `Debited` event on chain; and the gate alone (stub
 * facilitator) in the same run, with ratios between them and against the first paid path's baselines. Writes the "Gate" section
 * of docs/benchmarks.md. Sizes: BENCH_GATE_PAID (paid calls per loaded run), BENCH_GATE_LATENCY (calls at one
 * connection), BENCH_GATE_WARMUP (paid calls after each stack's start, before the measured loads, reported apart),
 * BENCH_GATE_CONNECTIONS ("32,128"), BENCH_GATE_MINING ("auto,interval"), BENCH_GATE_BUYERS,
 * BENCH_GATE_STUB (calls per gate-alone loaded run); BENCH_GATE_CONFIRMED=1 adds a stack with SETTLEMENT=confirmed
 * (automine, first connection count) for comparison. SETTLEMENT is passed through to the stack.
 */
import { loadavg } from "node:os";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import echoSpec from "../../services/host/samples/echo.json" with { type: "json" };
import { meteredPrice } from "../../services/protocol/price.ts";
import { randomNonce } from "../../services/protocol/resourceId.ts";
import { parseCommandLine } from "../../services/stack/parseCommandLine.ts";
import { sleep } from "../../testkit/sleep.ts";
import { envCount, envCounts } from "../benchEnv.ts";
import { machineLine, writeBenchSection } from "../benchReport.ts";
import type { GateAloneMeasurement } from "./gateBenchReport.ts";
import { gateBenchReport } from "./gateBenchReport.ts";
import type { StackMeasurement } from "./measureStack.ts";
import { measureStack } from "./measureStack.ts";
import { killLoads, runLoad } from "./runLoad.ts";
import { signBenchPayments } from "./signBenchPayments.ts";
import type { GateAlone } from "./startGateAlone.ts";
import { startGateAlone } from "./startGateAlone.ts";

parseCommandLine(
  `usage: npm run bench:gate

Paid calls through the whole \`npm start\` stack, and the gate alone; writes the "Gate" section of
docs/benchmarks.md. Environment: BENCH_GATE_PAID (6000), BENCH_GATE_LATENCY (500), BENCH_GATE_WARMUP (4000),
BENCH_GATE_CONNECTIONS (32,128), BENCH_GATE_MINING (auto,interval), BENCH_GATE_BUYERS (64), BENCH_GATE_STUB (3000),
BENCH_GATE_DRAIN_SECONDS (60), BENCH_GATE_CONFIRMED (1 adds SETTLEMENT=confirmed), SETTLEMENT.`,
  {},
);

const list = (value: string) =>
  value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
const CONNECTIONS = envCounts("BENCH_GATE_CONNECTIONS", [32, 128]);
/** A load cannot have more connections than calls (autocannon refuses it, deep in a run). */
const MOST = Math.max(1, ...CONNECTIONS);
const PAID = envCount("BENCH_GATE_PAID", 6000, MOST);
const LATENCY = envCount("BENCH_GATE_LATENCY", 500);
const WARM_UP = envCount("BENCH_GATE_WARMUP", 4000, 0);
const MINING = list(process.env.BENCH_GATE_MINING ?? "interval") as ("auto" | "interval")[];
const BUYERS = envCount("BENCH_GATE_BUYERS", 64);
const STUB = envCount("BENCH_GATE_STUB", 3000, MOST);
const CONFIRMED = process.env.BENCH_GATE_CONFIRMED === "1";
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

/** The gate alone: unpaid echo and paid through the stub-facilitator gate at one connection, then under load. */
async function measureGateAlone(gate: GateAlone): Promise<GateAloneMeasurement> {
  const buyers = Array.from({ length: 8 }, () => privateKeyToAccount(generatePrivateKey()));
  // The stub facilitator accepts any payment again, so a few hundred signed ones serve every run.
  const { headers } = await signBenchPayments({
    buyers,
    escrow: ESCROW,
    resourceId: RESOURCE_ID,
    cap: CAP,
    count: 500,
  });
  await runLoad({ url: gate.unpaidUrl, connections: 1, amount: 100, body: BODY, payments: null });
  log(`gate alone: unpaid ${LATENCY * 2} calls and paid ${LATENCY} calls, 1 connection`);
  const unpaid = await runLoad({
    url: gate.unpaidUrl,
    connections: 1,
    amount: LATENCY * 2,
    body: BODY,
    payments: null,
  });
  const latency = await runLoad({ url: gate.paidUrl, connections: 1, amount: LATENCY, body: BODY, payments: headers });
  const loads = [];
  for (const connections of CONNECTIONS) {
    log(`gate alone: ${STUB} paid calls, ${connections} connections`);
    loads.push({
      connections,
      run: await runLoad({ url: gate.paidUrl, connections, amount: STUB, body: BODY, payments: headers }),
    });
  }
  return { unpaid, latency, loads };
}

async function main() {
  log("gate alone: the echo sandbox (workerd) and a gate with a stub facilitator");
  alone = await startGateAlone({ resourceId: RESOURCE_ID, escrow: ESCROW, token: ESCROW, cap: CAP });
  const gate = alone;
  const aloneMeasured = await measureGateAlone(gate);

  const common = {
    latencyCalls: LATENCY,
    warmUpCalls: WARM_UP,
    paidCalls: PAID,
    buyers: BUYERS,
    cap: CAP,
    body: BODY,
    unpaidUrl: gate.unpaidUrl,
    drainTimeoutMs: DRAIN_TIMEOUT_MS,
    log,
    onCleanup: (cleanup: () => void) => stackKills.add(cleanup),
  };
  const stacks: StackMeasurement[] = [];
  for (const mining of MINING)
    stacks.push(await measureStack({ ...common, mining, settlement: SETTLEMENT, connections: CONNECTIONS }));
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
    machine: machineLine(),
    loadAverage: loadAtStart,
    body: BODY,
    price: PRICE,
    buyers: BUYERS,
    settlement: SETTLEMENT ? `set to \`${SETTLEMENT}\`` : "unset (committed, the facilitator's default)",
    alone: aloneMeasured,
    stacks,
    confirmed,
    totalSeconds: (performance.now() - began) / 1000,
  });
  writeBenchSection("gate", markdown);
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
