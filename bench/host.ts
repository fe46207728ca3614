import type { ChildProcess } from "node:child_process";
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os, { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import { getAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { signEscrowPayment } from "../services/buyer/src/sdk/signPayment.ts";
import { DEFAULT_SANDBOX_MEMORY } from "../services/host/configureWorkerd.ts";
import { createSandboxPool } from "../services/host/createSandboxPool.ts";
import { createShard } from "../services/host/createShard.ts";
import { readProcessMemory } from "../services/host/readProcessMemory.ts";
import { readProcessTree } from "../services/host/readProcessTree.ts";
import { sampleDeployment } from "../services/host/samples/sampleDeployment.ts";
import { startWorkerd } from "../services/host/startWorkerd.ts";
import { encodeBase64Json } from "../services/protocol/base64.ts";
import { percentile } from "../services/protocol/percentile.ts";
import { resourceIdOf } from "../services/protocol/resourceId.ts";
import { startStubFacilitator } from "../testkit/gate/startStubFacilitator.ts";
import { envCount } from "./benchEnv.ts";
import { machineLine, writeBenchSection } from "./benchReport.ts";

/**
 * `npm run bench:host`: what one resource host holds and costs per endpoint. (1) The sandbox alone, in this
 * process: a warm call through a shard against the same module called in Node, the first call of a handler that is
 * not loaded, an empty shard's start, and workerd started on a static configuration of workers for comparison.
 * (2) A host process (`services/host/main.ts`, PGlite, a stub facilitator that accepts every payment) taking
 * BENCH_HOST_ENDPOINTS deployments through its deploy API: deploy latency, deploy to first paid answer, resident
 * memory of the host and its workerd processes as endpoints are added, warm paid calls, a spinning handler's shard
 * restart and its neighbour's return, and a restart of the host with every deployment stored (start time, memory of
 * cold endpoints, their first calls). Writes the "host" section of docs/benchmarks.md.
 */
const ENDPOINTS = envCount("BENCH_HOST_ENDPOINTS", 1_000);
const CALLS = envCount("BENCH_HOST_CALLS", 2_000);
const STATIC_WORKERS = envCount("BENCH_HOST_STATIC_WORKERS", 100);
const STEP = Math.max(1, Math.round(ENDPOINTS / 10));
const ESCROW = getAddress("0x5fbdb2315678afecb367f032d93f642f64180aa3");
const TOKEN = getAddress("0xe7f1725e7734ce288f8367e1bb143e90bb3f0512");
const CREATOR = privateKeyToAccount(generatePrivateKey()).address;
const BUYER = privateKeyToAccount(generatePrivateKey());
const HOST_TOKEN = "bench-host-token-0123456789";
const ECHO = sampleDeployment("echo", { creator: CREATOR, asset: TOKEN, escrow: ESCROW });
const SPINNER =
  "export default { async fetch(request) { const body = await request.json(); if (body.spin) for (;;) {} return Response.json({ echo: body }) } }";

const log = (line: string) => process.stderr.write(`[bench:host] ${line}\n`);
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const loads = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(" / ");
const sleep = (n: number) => new Promise((resolve) => setTimeout(resolve, n));
const now = () => performance.now();

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = now();
  const value = await work();
  return [value, now() - start];
}

// (1) The sandbox alone.

async function sandboxAlone() {
  const rawBody = Buffer.from(JSON.stringify({ hello: "world" }));
  const call = () => ({
    body: { hello: "world" },
    rawBody,
    signal: new AbortController().signal,
    maxResponseBytes: 65_536,
  });
  const module = (await import(`data:text/javascript;base64,${Buffer.from(ECHO.source).toString("base64")}`)) as {
    default: { fetch(request: Request): Promise<Response> };
  };
  const direct = async () => {
    const response = await module.default.fetch(
      new Request("http://handler/call", {
        method: "POST",
        body: rawBody,
        headers: { "content-type": "application/json" },
      }),
    );
    await response.arrayBuffer();
  };
  const pool = createSandboxPool({ shards: 1, capacity: 10_000, idleUnloadMs: 3_600_000, quarantineMs: 3_600_000 });
  try {
    const echo = { key: "echo.bench", name: "echo", source: ECHO.source };
    const sandboxed = pool.handler(echo);
    for (let i = 0; i < 300; i++) {
      await direct();
      await sandboxed(call());
    }
    const directMs: number[] = [];
    const sandboxMs: number[] = [];
    for (let block = 0; block < CALLS / 100; block++) {
      for (let i = 0; i < 100; i++) directMs.push((await timed(direct))[1]);
      for (let i = 0; i < 100; i++) sandboxMs.push((await timed(() => sandboxed(call())))[1]);
    }
    log(`warm call: sandbox p50 ${ms(percentile(sandboxMs, 50))}, direct p50 ${ms(percentile(directMs, 50))}`);

    const firstMs: number[] = [];
    for (let i = 0; i < 50; i++) {
      const handler = { key: `cold.${i}`, name: `cold-${i}`, source: `${ECHO.source}\n// ${i}` };
      firstMs.push((await timed(() => pool.handler(handler)(call())))[1]);
      await pool.unload(handler.key);
    }
    log(`first call of a handler not loaded: p50 ${ms(percentile(firstMs, 50))}`);

    const startMs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const [shard, took] = await timed(() => createShard({ name: `start-${i}` }));
      startMs.push(took);
      await shard.close();
    }
    log(`empty shard start: p50 ${ms(percentile(startMs, 50))}`);
    return { sandboxMs, directMs, firstMs, startMs, staticWorkers: await staticConfig() };
  } finally {
    await pool.close();
  }
}

/** workerd on a static configuration of STATIC_WORKERS workers (the alternative to the loader): start time and memory. */
async function staticConfig() {
  const dir = mkdtempSync(join(tmpdir(), "bench-static-"));
  try {
    const services: string[] = [];
    for (let i = 0; i < STATIC_WORKERS; i++) {
      writeFileSync(join(dir, `h${i}.js`), `${ECHO.source}\n// ${i}`);
      services.push(
        `(name = "h${i}", worker = (modules = [(name = "h.js", esModule = embed "h${i}.js")], compatibilityDate = "2025-01-01", globalOutbound = "none"))`,
      );
    }
    writeFileSync(
      join(dir, "static.capnp"),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "none", network = (allow = [])), ${services.join(",\n")}],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "h0")],
);`,
    );
    const [workerd, took] = await timed(() =>
      startWorkerd({ configFile: join(dir, "static.capnp"), dataLimitMb: 65_536, startTimeoutMs: 120_000 }),
    );
    const memory = readProcessMemory(workerd.pid);
    await workerd.kill();
    log(`static configuration of ${STATIC_WORKERS} workers: started in ${ms(took)}, ${mib(memory?.rssBytes ?? 0)}`);
    return { workers: STATIC_WORKERS, startMs: took, rssBytes: memory?.rssBytes ?? 0 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// (2) A host process.

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

type HostProcess = { child: ChildProcess; url: string };

const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

async function startHostProcess(env: Record<string, string>, logFile: string): Promise<[HostProcess, number]> {
  const port = await freePort();
  const start = now();
  const log = openSync(logFile, "a");
  const child = spawn(process.execPath, ["services/host/main.ts"], {
    cwd: new URL("..", import.meta.url).pathname,
    env: { PATH: process.env.PATH ?? "", ...env, PORT: String(port), LOG_LEVEL: "warn" },
    stdio: ["ignore", log, log],
  });
  closeSync(log);
  running.add(child);
  child.once("exit", () => running.delete(child));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error("the host exited at start");
    const ready = await fetch(`${url}/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return [{ child, url }, now() - start];
    await sleep(20);
  }
}

async function stopHost(host: HostProcess) {
  const exited = new Promise((resolve) => host.child.once("exit", resolve));
  host.child.kill("SIGTERM");
  await exited;
}

function memoryOf(host: HostProcess) {
  const pids = readProcessTree(host.child.pid as number);
  let rss = 0;
  let pss = 0;
  for (const pid of pids) {
    const memory = readProcessMemory(pid);
    rss += memory?.rssBytes ?? 0;
    pss += memory?.pssBytes ?? 0;
  }
  return { rss, pss, processes: pids.length };
}

const bearer = { authorization: `Bearer ${HOST_TOKEN}`, "content-type": "application/json" };

async function deploy(host: HostProcess, slug: string, source = `${ECHO.source}\n// ${slug}`) {
  const response = await fetch(`${host.url}/deployments`, {
    method: "POST",
    headers: bearer,
    body: JSON.stringify({ ...ECHO, slug, source }),
  });
  if (response.status !== 201) throw new Error(`deploy ${slug}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

async function payment(slug: string): Promise<string> {
  const resourceId: Hex = resourceIdOf(CREATOR, slug);
  return encodeBase64Json(
    await signEscrowPayment({
      account: BUYER,
      escrow: ESCROW,
      resourceId,
      maxAmount: BigInt(ECHO.pricing.max),
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 3_600),
    }),
  );
}

async function pay(host: HostProcess, slug: string, header: string, body: unknown = { hello: slug }) {
  const response = await fetch(`${host.url}/r/${slug}/call`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-payment": header },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

async function hostProcess() {
  const stub = await startStubFacilitator();
  const dataDir = mkdtempSync(join(tmpdir(), "bench-host-"));
  const env = {
    DATA_DIR: dataDir,
    HOST_TOKEN,
    FACILITATOR_URL: stub.url,
    ESCROW_ADDRESS: ESCROW,
    TOKEN_ADDRESS: TOKEN,
  };
  const slugs = Array.from({ length: ENDPOINTS }, (_, i) => `e${i}`);
  const logFile = join(dataDir, "host.log");
  const startHost = (variables: Record<string, string>) => startHostProcess(variables, logFile);
  try {
    await stopHost((await startHost(env))[0]);
    let [host, emptyStartMs]: [HostProcess, number] = await startHost(env);
    const empty = memoryOf(host);
    const series: { endpoints: number; rss: number; pss: number; processes: number }[] = [{ endpoints: 0, ...empty }];
    const deployMs: number[] = [];
    const servingMs: number[] = [];
    for (const [i, slug] of slugs.entries()) {
      const header = i % STEP === 0 ? await payment(slug) : undefined;
      const start = now();
      await deploy(host, slug);
      deployMs.push(now() - start);
      if (header) {
        const status = await pay(host, slug, header);
        if (status !== 200) throw new Error(`first paid call of ${slug}: ${status}`);
        servingMs.push(now() - start);
      }
      if ((i + 1) % STEP === 0) {
        await sleep(200);
        series.push({ endpoints: i + 1, ...memoryOf(host) });
        log(`${i + 1} endpoints: ${mib(series.at(-1)?.rss ?? 0)} resident, ${series.at(-1)?.processes} processes`);
      }
    }
    log(
      `deployed ${ENDPOINTS}: deploy p50 ${ms(percentile(deployMs, 50))}, to first paid answer p50 ${ms(percentile(servingMs, 50))}`,
    );

    const headers = await Promise.all(slugs.map(payment));
    for (let i = 0; i < slugs.length; i += 8)
      await Promise.all(slugs.slice(i, i + 8).map((slug, j) => pay(host, slug, headers[i + j] as string)));
    await sleep(500);
    const warm = memoryOf(host);
    log(
      `every endpoint called: ${mib(warm.rss)} resident (${mib(warm.pss)} proportional) in ${warm.processes} processes`,
    );

    const paidMs: number[] = [];
    for (let i = 0; i < Math.min(CALLS, 1_000); i++) {
      const slug = slugs[Math.floor(Math.random() * slugs.length)] as string;
      const header = await payment(slug);
      paidMs.push((await timed(() => pay(host, slug, header)))[1]);
    }

    const shards = (await (await fetch(`${host.url}/shards`, { headers: bearer })).json()) as {
      loaded: number;
      restarts: number;
    }[];
    const restarts = shards.reduce((sum, shard) => sum + shard.restarts, 0);
    const reasons = readFileSync(logFile, "utf8")
      .split("\n")
      .filter((line) => line.includes("restarting the sandbox"))
      .map((line) => (JSON.parse(line) as { shard: string; why: string }).why);
    log(
      `shards: ${shards.map((shard) => shard.loaded).join(", ")} loaded; ${restarts} restarts so far ${reasons.join("; ")}`,
    );
    const spin = await spinner(host, slugs);

    await stopHost(host);
    const [restarted, storedStartMs] = await startHost(env);
    host = restarted;
    await sleep(200);
    const cold = memoryOf(host);
    const coldMs: number[] = [];
    const warmAgainMs: number[] = [];
    for (const slug of slugs.slice(0, 50)) {
      coldMs.push((await timed(async () => pay(host, slug, await payment(slug))))[1]);
      const header = await payment(slug);
      warmAgainMs.push((await timed(() => pay(host, slug, header)))[1]);
    }
    log(`host restart with ${ENDPOINTS} stored: ready in ${ms(storedStartMs)}, ${mib(cold.rss)} resident`);
    await stopHost(host);
    return {
      series,
      warm,
      shards,
      restarts,
      deployMs,
      servingMs,
      paidMs,
      spin,
      emptyStartMs,
      storedStartMs,
      cold,
      coldMs,
      warmAgainMs,
    };
  } finally {
    await stub.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A spinner deployed beside the others: how long until its shard is killed, and until a neighbour answers again. */
async function spinner(host: HostProcess, slugs: string[]) {
  await deploy(host, "spinner", SPINNER);
  const list = (await (await fetch(`${host.url}/deployments`, { headers: bearer })).json()) as {
    slug: string;
    sandbox: { shard: string | null };
  }[];
  const shard = list.find((d) => d.slug === "spinner")?.sandbox.shard;
  const neighbour = list.find((d) => d.slug !== "spinner" && d.sandbox.shard === shard)?.slug ?? (slugs[0] as string);
  const pidOf = async () =>
    (
      (await (await fetch(`${host.url}/shards`, { headers: bearer })).json()) as { name: string; pid: number | null }[]
    ).find((s) => s.name === shard)?.pid;
  const before = await pidOf();
  const spinHeader = await payment("spinner");
  const start = now();
  const spun = pay(host, "spinner", spinHeader, { spin: true });
  while ((await pidOf()) === before) await sleep(10);
  const killed = now();
  for (;;) {
    const header = await payment(neighbour);
    if ((await pay(host, neighbour, header)) === 200) break;
    await sleep(10);
  }
  const back = now();
  const spinnerStatus = await spun;
  log(
    `spinner: killed after ${ms(killed - start)}, neighbour back ${ms(back - killed)} later, spinner answered ${spinnerStatus}`,
  );
  return { detectionMs: killed - start, recoveryMs: back - killed, spinnerStatus };
}

log(`machine: ${machineLine()}; load average ${loads()}`);
const loadBefore = loads();
const alone = await sandboxAlone();
const hosted = await hostProcess();
const loadAfter = loads();

const last = hosted.series.at(-1) ?? { endpoints: 0, rss: 0, pss: 0 };
const first = hosted.series[1] ?? last;
const marginal = (last.rss - first.rss) / Math.max(1, last.endpoints - first.endpoints);
const addedP50 = percentile(alone.sandboxMs, 50) - percentile(alone.directMs, 50);
const perStored = (hosted.storedStartMs - hosted.emptyStartMs) / ENDPOINTS;
const startPerEndpoint = perStored > 0 ? ms(perStored) : "below the noise of a start";
const markdown = `## Host

\`npm run bench:host\` (BENCH_HOST_ENDPOINTS=${ENDPOINTS}). Machine: ${machineLine()}; load average (1 / 5 / 15 min)
${loadBefore} at the start, ${loadAfter} at the end. The host runs as \`services/host/main.ts\` on its defaults (4
shards of up to 400 endpoints, PGlite), against a stub facilitator that accepts every payment; memory is read from
\`/proc/<pid>/smaps_rollup\` for the host and every workerd process below it (resident: shared pages counted in each
process; proportional: split among them).

| figure | value | target |
| --- | --- | --- |
| endpoints deployed on one host, every one called | ${ENDPOINTS} | 1,000 |
| memory of the host and its workerd processes, all warm | ${mib(hosted.warm.rss)} resident, ${mib(hosted.warm.pss)} proportional, ${hosted.warm.processes} processes | ≤ 4 GiB |
| endpoints loaded per shard; watchdog restarts during the run (before the spinner) | ${hosted.shards.map((shard) => shard.loaded).join(", ")}; ${hosted.restarts} | 0 restarts |
| memory per further warm endpoint | ${(marginal / 2 ** 20).toFixed(2)} MiB (from ${first.endpoints} to ${last.endpoints} endpoints) | |
| added by the sandbox to a warm call, p50 (p95) | ${ms(addedP50)}: ${ms(percentile(alone.sandboxMs, 50))} (${ms(percentile(alone.sandboxMs, 95))}) through a shard vs ${ms(percentile(alone.directMs, 50))} for the module called in Node | ≤ 2 ms |
| a new deployment serving: deploy request to its first paid answer, p50 / max | ${ms(percentile(hosted.servingMs, 50))} / ${ms(Math.max(...hosted.servingMs))} (${hosted.servingMs.length} samples) | ≤ 1 s |
| deploy API (check, staging load, store write), p50 / p95 | ${ms(percentile(hosted.deployMs, 50))} / ${ms(percentile(hosted.deployMs, 95))} | |
| first call of a handler that is not loaded (load + call), p50 / p95 | ${ms(percentile(alone.firstMs, 50))} / ${ms(percentile(alone.firstMs, 95))}, i.e. ${ms(percentile(alone.firstMs, 50) - percentile(alone.sandboxMs, 50))} added | |
| host restarted with ${ENDPOINTS} stored, to ready (with an empty store) | ${ms(hosted.storedStartMs)} (${ms(hosted.emptyStartMs)}): ${startPerEndpoint} per stored endpoint | |
| memory with ${ENDPOINTS} stored and none loaded (cold endpoints) | ${mib(hosted.cold.rss)} in ${hosted.cold.processes} process${hosted.cold.processes === 1 ? "" : "es"}, ${((hosted.cold.rss - (hosted.series[0]?.rss ?? 0)) / ENDPOINTS / 2 ** 10).toFixed(0)} KiB per cold endpoint | |
| first paid call of a cold endpoint after that restart (gate built, handler loaded), p50 / p95 | ${ms(percentile(hosted.coldMs, 50))} / ${ms(percentile(hosted.coldMs, 95))}; its second call ${ms(percentile(hosted.warmAgainMs, 50))} | |
| warm paid call through the host (gate, stub facilitator, sandbox), p50 / p95 | ${ms(percentile(hosted.paidMs, 50))} / ${ms(percentile(hosted.paidMs, 95))} | |
| an empty shard (workerd process) starting, p50 | ${ms(percentile(alone.startMs, 50))} | |
| a spinner in a shard: spin to kill / kill to a neighbour's answer | ${ms(hosted.spin.detectionMs)} / ${ms(hosted.spin.recoveryMs)} (the spinner's call: ${hosted.spin.spinnerStatus}) | ≤ time limit / ≤ 2 s |
| for comparison, workerd on a static configuration of ${alone.staticWorkers.workers} workers: start / resident | ${ms(alone.staticWorkers.startMs)} / ${mib(alone.staticWorkers.rssBytes)} | |

| endpoints | resident | proportional | processes |
| --- | --- | --- | --- |
${hosted.series.map((s) => `| ${s.endpoints} | ${mib(s.rss)} | ${mib(s.pss)} | ${s.processes} |`).join("\n")}
`;
process.stdout.write(markdown);
writeBenchSection("host", markdown);
log(`wrote the host section of docs/benchmarks.md (heap limit ${DEFAULT_SANDBOX_MEMORY.heapMb} MB per isolate)`);
