import { fork } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { pino } from "pino";
import type { Hex } from "viem";
import { parseEventLogs } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { ROLE, startLocalChain } from "../../test/support/localChain.ts";
import { facilitatorEnv, spawnFacilitator } from "../../test/support/startFacilitator.ts";
import { signEscrowPayment } from "../buyer/src/sdk/signPayment.ts";
import { createSandbox } from "../host/createSandbox.ts";
import { sampleDeployment } from "../host/samples/sampleDeployment.ts";
import { encodeBase64Json } from "../protocol/base64.ts";
import { PLACEHOLDER_AGENT_ID } from "../protocol/constants.ts";
import { machineLine, percentile, writeBenchSection } from "../stack/benchReport.ts";
import { stopChild } from "../stack/childProcess.ts";
/**
 * `npm run bench:gate`: the echo sample in workerd, called unpaid (a plain Node server in front of the same
 * sandbox), paid through the gate with a stub facilitator (the gate's own cost, no chain), and paid through the gate
 * with the real facilitator, every call debited on chain (pre-signed unique payloads over many buyers), on PGlite and
 * then on PostgreSQL over TCP and over its Unix socket. The load generator (autocannon) runs in its own process, and
 * so does the facilitator. Writes the "Gate" section of docs/benchmarks.md.
 */
import type { LoadResult, LoadSpec } from "./benchLoad.ts";
import type { FacilitatorClient } from "./createFacilitatorClient.ts";
import type { Gate } from "./createGate.ts";
import { createGate } from "./createGate.ts";

const PAID = Number(process.env.BENCH_GATE_PAID ?? 4000);
const SEQUENTIAL = Number(process.env.BENCH_GATE_SEQUENTIAL ?? 100);
const LATENCY_CALLS = Number(process.env.BENCH_GATE_LATENCY ?? 500);
const CONNECTIONS = Number(process.env.BENCH_GATE_CONNECTIONS ?? 128);
const BUYERS = 32;
/** PostgreSQL for the facilitator runs after PGlite (the local server by default; set BENCH_DATABASE_URL= to skip them). */
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** The same server through its Unix socket, when there is one (a co-located database spares the TCP loopback). */
const SOCKET_DIR = process.env.BENCH_DATABASE_SOCKET_DIR ?? "/var/run/postgresql";
const postgresTargets = DATABASE_URL
  ? [
      { label: "PostgreSQL over TCP", url: DATABASE_URL },
      ...(existsSync(join(SOCKET_DIR, ".s.PGSQL.5432"))
        ? [{ label: "PostgreSQL over its Unix socket", url: withSocket(DATABASE_URL, SOCKET_DIR) }]
        : []),
    ]
  : [];

function withSocket(url: string, dir: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set("host", dir);
  return parsed.toString();
}
const STUB_LOADED = Number(process.env.BENCH_GATE_STUB_LOADED ?? 2000);
const CAP = 50_000n;
const BODY = '{"hello":"bench"}';
const PRICE = 1_200n;

const began = performance.now();
const loadAtStart = loadavg()[0]!;
const log = (line: string) =>
  process.stderr.write(`[bench:gate ${((performance.now() - began) / 1000).toFixed(1)}s] ${line}\n`);

function load(spec: LoadSpec): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), "bench-gate-"));
  const file = join(dir, "spec.json");
  writeFileSync(file, JSON.stringify(spec));
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL("./benchLoad.ts", import.meta.url)), [file], {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    child.once("message", (result) => resolve(result as LoadResult));
    child.once("exit", (code) => {
      rmSync(dir, { recursive: true, force: true });
      if (code !== 0) reject(new Error(`load generator exited with ${code}`));
    });
  });
}

function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

function timeCalls(gate: Gate, name: "verify" | "settle"): number[] {
  const samples: number[] = [];
  const client = gate.runtime.facilitator as FacilitatorClient;
  const original = client[name].bind(client) as (...args: unknown[]) => Promise<unknown>;
  (client as Record<string, unknown>)[name] = async (...args: unknown[]) => {
    const started = performance.now();
    try {
      return await original(...args);
    } finally {
      samples.push(performance.now() - started);
    }
  };
  return samples;
}

log("starting the local chain");
const chain = await startLocalChain();
const resourceId = await chain.registerResource({ slug: "echo", cap: CAP, base: 1_000n, perKB: 200n });
const { escrow, token } = chain.addresses;

log(`funding ${BUYERS} buyers`);
const buyers = Array.from({ length: BUYERS }, () => privateKeyToAccount(generatePrivateKey()));
const perBuyer = CAP * BigInt(Math.ceil(((1 + postgresTargets.length) * PAID + SEQUENTIAL) / BUYERS) + 2);
await chain.contracts.token.write.mint([chain.address(ROLE.admin), perBuyer * BigInt(BUYERS)]);
await chain.contracts.token.write.approve([escrow, perBuyer * BigInt(BUYERS)]);
for (const buyer of buyers) await chain.contracts.escrow.write.depositFor([buyer.address, perBuyer]);

function startFacilitatorProcess(store: Record<string, string>) {
  return spawnFacilitator({
    ...facilitatorEnv(chain),
    BATCH_WINDOW_MS: "20",
    BATCH_MAX_ITEMS: "64",
    LOG_LEVEL: "info",
    ...store,
  });
}

log("starting the facilitator (own process, PGlite) and the echo sandbox (workerd)");
const facilitator = await startFacilitatorProcess({ DATA_DIR: "memory://" });
const echo = sampleDeployment("echo", { creator: chain.address(ROLE.creator), asset: token, escrow });
const sandbox = await createSandbox({ name: "echo", source: echo.source });

const stub = await listen((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    res.setHeader("content-type", "application/json");
    if (req.url === "/verify") {
      const { paymentPayload } = JSON.parse(Buffer.concat(chunks).toString()) as {
        paymentPayload: { authorization: { buyer: string; nonce: string } };
      };
      res.end(
        JSON.stringify({
          isValid: true,
          payer: paymentPayload.authorization.buyer,
          idemKey: paymentPayload.authorization.nonce,
          reserved: CAP.toString(),
          expiresAt: new Date().toISOString(),
        }),
      );
    } else if (req.url === "/settle") {
      res.end(JSON.stringify({ success: true, receipt: encodeBase64Json({ success: true, stub: true }) }));
    } else {
      res.end(JSON.stringify({ ready: true }));
    }
  });
});

async function gateServer(facilitatorUrl: string) {
  let gate: Gate | undefined;
  const served = await listen((req, res) => gate!.callback(req, res));
  const card = {
    ...echo.card,
    url: `${served.url}/call`,
    x402: { ...echo.card.x402, payTo: resourceId },
    identity: { ...(echo.card as Record<string, any>).identity, agentId: PLACEHOLDER_AGENT_ID },
  };
  gate = createGate({
    resourceId,
    escrow,
    token,
    cap: CAP,
    pricing: {
      base: echo.pricing.base,
      perKB: echo.pricing.perKB,
      computeMultiplier: echo.computeMultiplier,
      maxResponseBytes: echo.maxResponseBytes,
    },
    requestSchema: echo.requestSchema,
    responseSchema: echo.responseSchema,
    card,
    callUrl: `${served.url}/call`,
    facilitatorUrl,
    handler: sandbox.handler,
    logger: pino({ level: "warn" }),
  });
  return { ...served, gate };
}
const paidGate = await gateServer(facilitator.url);
const stubGate = await gateServer(stub.url);
const unpaid = await listen((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", async () => {
    const rawBody = Buffer.concat(chunks);
    const result = await sandbox.handler({
      body: JSON.parse(rawBody.toString()),
      rawBody,
      signal: new AbortController().signal,
      maxResponseBytes: 65_536,
    });
    res.writeHead(result.status, { "content-type": result.contentType ?? "application/json" }).end(result.body);
  });
});

log("signing unique payments");
const validBefore = BigInt(Math.floor(Date.now() / 1000) + 3600);
const sign = (i: number) =>
  signEscrowPayment({ account: buyers[i % BUYERS]!, escrow, resourceId, maxAmount: CAP, validBefore }).then(
    encodeBase64Json,
  );
const signMany = (count: number, offset: number) =>
  Promise.all(Array.from({ length: count }, (_, i) => sign(offset + i)));
const sequentialPayments = await signMany(SEQUENTIAL, 0);
const loadedPayments = await signMany(PAID, SEQUENTIAL);
const postgresPayments = await Promise.all(postgresTargets.map((_, i) => signMany(PAID, SEQUENTIAL + (i + 1) * PAID)));
const stubPayments = await signMany(LATENCY_CALLS, 0);

const balances = async () =>
  (await Promise.all(buyers.map((b) => chain.contracts.escrow.read.balanceOf([b.address])))).reduce(
    (a, b) => a + b,
    0n,
  );

log("warming up");
await load({ url: `${unpaid.url}/call`, connections: 1, amount: 100, body: BODY, payments: null });
log(`unpaid: ${LATENCY_CALLS * 2} calls, 1 connection`);
const unpaidRun = await load({
  url: `${unpaid.url}/call`,
  connections: 1,
  amount: LATENCY_CALLS * 2,
  body: BODY,
  payments: null,
});
log(`paid through the gate, stub facilitator: ${LATENCY_CALLS} calls, 1 connection`);
const stubRun = await load({
  url: `${stubGate.url}/call`,
  connections: 1,
  amount: LATENCY_CALLS,
  body: BODY,
  payments: stubPayments,
});
log(`paid through the gate, stub facilitator: ${STUB_LOADED} calls, ${CONNECTIONS} connections`);
const stubLoadedRun = await load({
  url: `${stubGate.url}/call`,
  connections: CONNECTIONS,
  amount: STUB_LOADED,
  body: BODY,
  payments: stubPayments,
});

const before = await balances();
const firstBlock = await chain.publicClient.getBlockNumber();
log(`paid, real facilitator, sequential: ${SEQUENTIAL} calls, 1 connection`);
const verifyTimes = timeCalls(paidGate.gate, "verify");
let settleTimes = timeCalls(paidGate.gate, "settle");
const sequentialRun = await load({
  url: `${paidGate.url}/call`,
  connections: 1,
  amount: SEQUENTIAL,
  body: BODY,
  payments: sequentialPayments,
});
const sequentialVerify = verifyTimes.splice(0);
const sequentialSettle = settleTimes.splice(0);
log(`paid, real facilitator, under load: ${PAID} calls, ${CONNECTIONS} connections`);
const loadedRun = await load({
  url: `${paidGate.url}/call`,
  connections: CONNECTIONS,
  amount: PAID,
  body: BODY,
  payments: loadedPayments,
});
const loadedVerify = verifyTimes.splice(0);
const loadedSettle = settleTimes.splice(0);
// The next runs start only once this facilitator has drained and exited, so that they do not share the cores with it.
await stopChild(facilitator.child);

type PostgresRun = { label: string; run: LoadResult; settle: number[] };
const postgresRuns: PostgresRun[] = [];
for (const [i, target] of postgresTargets.entries()) {
  const schema = `gate_bench_${process.pid}_${i}`;
  log(`starting a facilitator on ${target.label}`);
  try {
    const onPostgres = await startFacilitatorProcess({ DATABASE_URL: target.url, DATABASE_SCHEMA: schema });
    try {
      const postgresGate = await gateServer(onPostgres.url);
      settleTimes = timeCalls(postgresGate.gate, "settle");
      log(`paid, facilitator on ${target.label}, under load: ${PAID} calls, ${CONNECTIONS} connections`);
      const run = await load({
        url: `${postgresGate.url}/call`,
        connections: CONNECTIONS,
        amount: PAID,
        body: BODY,
        payments: postgresPayments[i]!,
      });
      postgresRuns.push({ label: target.label, run, settle: settleTimes.splice(0) });
      postgresGate.gate.close();
      postgresGate.server.close();
    } finally {
      await stopChild(onPostgres.child);
    }
  } catch (error) {
    log(`${target.label} run skipped: ${(error as Error).message.split("\n")[0]}`);
  } finally {
    const client = new pg.Client({ connectionString: target.url });
    await client
      .connect()
      .then(() => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`))
      .catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}
const after = await balances();
const lastBlock = await chain.publicClient.getBlockNumber();

let debits = 0;
let batches = 0;
for (let b = firstBlock + 1n; b <= lastBlock; b++) {
  const block = await chain.publicClient.getBlock({ blockNumber: b, includeTransactions: true });
  for (const tx of block.transactions) {
    if (tx.to?.toLowerCase() !== escrow.toLowerCase()) continue;
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: tx.hash as Hex });
    const inTransaction = parseEventLogs({
      abi: chain.contracts.escrow.abi,
      logs: receipt.logs,
      eventName: "Debited",
    }).length;
    debits += inTransaction;
    if (inTransaction > 0) batches++;
  }
}
const paidOk = [sequentialRun, loadedRun, ...postgresRuns.map((p) => p.run)].reduce(
  (sum, r) => sum + (r.statusCodes["200"] ?? 0),
  0,
);

paidGate.gate.close();
stubGate.gate.close();
for (const s of [paidGate.server, stubGate.server, unpaid.server, stub.server]) s.close();
await sandbox.dispose();
await chain.close();

const ms = (n: number) => `${n.toFixed(1)} ms`;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const codes = (r: LoadResult) =>
  Object.entries(r.statusCodes)
    .map(([c, n]) => `${n} × ${c}`)
    .join(", ") + (r.errors ? `, ${r.errors} errors` : "");
const row = (name: string, conns: number, r: LoadResult) =>
  `| ${name} | ${conns} | ${codes(r)} | ${fmt(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.mean)} |`;
const dist = (name: string, values: number[]) =>
  `| ${name} | ${values.length} | ${ms(percentile(values, 50))} | ${ms(percentile(values, 99))} |`;

const table = (header: string, rows: (string | null)[]) =>
  [header, header.replace(/[^|]+/g, "---"), ...rows.filter((r) => r !== null)].join("\n");
const addedP50 = stubRun.p50 - unpaidRun.p50;
const markdown = `
## Gate

Command: \`npm run bench:gate\` (services/gate/bench.ts). Machine: ${machineLine()}. The echo sample runs in workerd (its own
process); the facilitator runs in its own process (batch window 20 ms), first on PGlite in memory, then on the local
PostgreSQL server${postgresTargets.length > 1 ? ", reached over TCP and then over its Unix socket" : ""}; the load generator (autocannon, latencies timed per
request, calls/s counted from the first request to the last answer) runs in its own process; the local chain (Hardhat
EDR, automine) and the gate share the bench process. All of it, PostgreSQL included, shares the two cores. Request body
\`${BODY}\`, so every paid call costs ${PRICE} base units. The machine is shared (1-minute load average
${loadAtStart.toFixed(1)} when this run started), so figures move by tens of percent between runs.

${table("| scenario | connections | answers | calls/s | p50 | p99 | mean |", [
  row("unpaid: the same echo sandbox behind a plain Node server", 1, unpaidRun),
  row("paid through the gate, stub facilitator (the gate’s own work, no chain)", 1, stubRun),
  row("paid through the gate, stub facilitator (the gate’s own work, no chain)", CONNECTIONS, stubLoadedRun),
  row("paid, real facilitator (PGlite), every call debited on chain", 1, sequentialRun),
  row("paid, real facilitator (PGlite), every call debited on chain", CONNECTIONS, loadedRun),
  ...postgresRuns.map((p) =>
    row(`paid, real facilitator (${p.label}), every call debited on chain`, CONNECTIONS, p.run),
  ),
])}

Latency the gate adds (stub facilitator minus unpaid, one connection): p50 ${ms(addedP50)}, p99 ${ms(stubRun.p99 - unpaidRun.p99)},
mean ${ms(stubRun.mean - unpaidRun.mean)}. That covers content type, size, JSON and schema checks, decoding the payment,
the verify and settle round trips to a facilitator, response validation, pricing and the receipt headers.

The facilitator's own time, measured inside the gate around its calls (reported separately; settle includes the chain
confirmation of the debit):

${table("| facilitator call | calls | p50 | p99 |", [
  dist("`POST /verify`, sequential", sequentialVerify),
  dist("`POST /settle` (debit mined), sequential", sequentialSettle),
  dist(`\`POST /verify\`, ${CONNECTIONS} connections`, loadedVerify),
  dist(`\`POST /settle\` (debit mined), ${CONNECTIONS} connections`, loadedSettle),
  ...postgresRuns.map((p) => dist(`\`POST /settle\` (debit mined), ${p.label}, ${CONNECTIONS} connections`, p.settle)),
])}

On chain: ${paidOk} paid calls answered 200, ${debits} \`Debited\` events in ${batches} transactions (${(debits / Math.max(batches, 1)).toFixed(1)} debits per batch on average, all runs together) in the blocks of the run, buyers' escrow balances
down by ${fmt(Number(before - after))} = ${paidOk} × ${PRICE} ${before - after === BigInt(paidOk) * PRICE ? "(every paid call debited exactly once)" : "(MISMATCH)"}.

Against the targets of issue 4: added p50 ${ms(addedP50)} (target ≤ 10 ms: ${addedP50 <= 10 ? "met" : "not met"}); paid calls/s with every
call debited on chain ${fmt(loadedRun.rps)} with PGlite${postgresRuns.map((p) => `, ${fmt(p.run.rps)} with ${p.label}`).join("")} (target ≥ 300: ${Math.max(loadedRun.rps, ...postgresRuns.map((p) => p.run.rps)) >= 300 ? "met" : "not met"}). The gate alone sustains
${fmt(stubLoadedRun.rps)} paid calls/s; end to end the rate is that of the facilitator's verify and settle, whose settle waits for
the debit to be mined (see the Facilitator section), on the same two cores.
`;
writeBenchSection("gate", markdown);
process.stdout.write(markdown);
process.exit(0);
