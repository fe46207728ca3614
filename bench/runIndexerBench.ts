/** What `npm run bench:indexer` runs, once indexer.ts has read its command line (see there). */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import os from "node:os";
import { eq, sum } from "@ponder/client";
import { BATCH_DEFAULTS } from "../services/facilitator/loadFacilitatorConfig.ts";
import type { CompactDebit } from "../services/facilitator/relayer/compactDebit.ts";
import { processCpuSeconds } from "../services/host/readProcessStat.ts";
import { createProjectionsClient, projections } from "../services/projections/createProjectionsClient.ts";
import { percentile } from "../services/protocol/percentile.ts";
import type { DebitLoad } from "../testkit/chain/debitLoad.ts";
import { prepareDebitLoad, sendDebitBatches, signDebits } from "../testkit/chain/debitLoad.ts";
import type { LocalChain } from "../testkit/chain/localChain.ts";
import { ROLE, startLocalChain } from "../testkit/chain/localChain.ts";
import type { Indexer } from "../testkit/indexer/startIndexer.ts";
import { startIndexer } from "../testkit/indexer/startIndexer.ts";
import { sleep } from "../testkit/sleep.ts";
import { envCount } from "./benchEnv.ts";
import { machineLine, writeBenchSection } from "./benchReport.ts";

/**
 * `npm run bench:indexer`: what Ponder (PGlite, pinned to one core) costs per `Debited` event, and how many it
 * indexes per second, in realtime (debits mined while it runs, as fast as the local chain mines them, in
 * `debitBatchCompact` batches as the relayer sends them), then the time from a registration's block to its row in
 * the indexer's API while debits flow at a normal rate, then in backfill (a fresh Ponder over all those debits).
 * Each on a fresh chain, for Ponder as installed and with indexer/ponder/patches.ts (what the stack runs).
 * Writes the "indexer" section of docs/benchmarks.md.
 */

const REALTIME = envCount("BENCH_REALTIME_EVENTS", 8192);
/**
 * Debits indexed in realtime before the measured ones, not counted: Ponder's first thousands of events after a start
 * run while V8 still compiles its hot paths (0.65 ms of CPU per event over the first 8,192 here, 0.49 over 32,768).
 */
const WARM_UP = envCount("BENCH_WARMUP_EVENTS", 8192);
/** How often the bench asks the indexer's `/status` while it waits: as often as the marketplace's catalog sync. */
const STATUS_POLL_MS = envCount("BENCH_STATUS_POLL_MS", 100);
/** Debits per block: what the relayer sends at most per batch under committed settlement, the default. */
const BATCH = envCount("BENCH_BATCH", BATCH_DEFAULTS.committed.maxItems);
const NORMAL_RATE = envCount("BENCH_NORMAL_RATE", 200);
const REGISTRATIONS = envCount("BENCH_REGISTRATIONS", 30);
const POLLING_MS = envCount("BENCH_POLLING_MS", 250);
/** Empty blocks mined, one every EMPTY_GAP_MS, for the CPU Ponder spends per block regardless of its events. */
const EMPTY_BLOCKS = envCount("BENCH_EMPTY_BLOCKS", 300, 0);
const EMPTY_GAP_MS = envCount("BENCH_EMPTY_GAP_MS", 50, 0);
/** How long Ponder's idle CPU (polling the chain, no new block) is measured, to subtract it from the empty blocks'. */
const IDLE_SECONDS = envCount("BENCH_IDLE_SECONDS", 5, 0);
const BUYERS = 16;
const RESOURCES = 8;
/** A directory for V8 CPU profiles of each Ponder process (`node --cpu-prof`), when set. */
const PROFILE_DIR = process.env.BENCH_CPU_PROF_DIR;
const nodeArgs = PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] : [];
/** A file for Ponder's Prometheus metrics (`/metrics`) after the realtime phase, when set. */
const METRICS_FILE = process.env.BENCH_METRICS_FILE;
/** PostgreSQL server for Ponder's store (a database per run); PGlite when unset. */
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL || undefined;
if (POSTGRES_URL) process.env.TEST_DATABASE_URL = POSTGRES_URL;
/** Where Ponder's PGlite directory is made (e.g. /dev/shm for tmpfs); the OS's temporary directory when unset. */
const PGLITE_ROOT = process.env.BENCH_PGLITE_ROOT || undefined;
/** Which variants to measure: `installed`, `patched` (default both). */
const VARIANTS = (process.env.BENCH_VARIANTS ?? "installed,patched").split(",").map((v) => v.trim());
/** Ponder runs on this CPU; the bench (chain and load) on the others. */
const PONDER_CPU = os.cpus().length > 1 ? "1" : "0";

const log = (line: string) => process.stderr.write(`[bench:indexer] ${line}\n`);

function hasTaskset(): boolean {
  try {
    execFileSync("taskset", ["-V"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Registers the resources and funds the buyers every debit of the bench draws on. */
function prepare(chain: LocalChain): Promise<DebitLoad> {
  return prepareDebitLoad(chain, {
    buyers: BUYERS,
    resources: RESOURCES,
    debits: WARM_UP + REALTIME + 60 * NORMAL_RATE,
  });
}

/** Sends `debits` in batches of BATCH, one every `gapMs` at most. */
const sendBatches = (load: DebitLoad, debits: CompactDebit[], gapMs = 0) =>
  sendDebitBatches(load, debits, { batch: BATCH, gapMs });

async function debitCount(indexer: Indexer): Promise<number> {
  const client = createProjectionsClient(indexer.url);
  const rows = await client.db.select({ n: sum(projections.debitBatch.calls) }).from(projections.debitBatch);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Resolves with the time (performance.now) at which the indexer's `/status` reaches the chain's head, and checks that
 * its `/sql` API then shows `expected` debits. (Polling `/status`, not a count over `debit`, keeps the bench's own
 * queries out of Ponder's CPU.)
 */
async function waitForDebits(
  load: DebitLoad,
  indexer: Indexer,
  expected: number,
  timeoutMs = 600_000,
): Promise<number> {
  const head = Number(await load.chain.publicClient.getBlockNumber());
  const client = createProjectionsClient(indexer.url);
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const { block } = await client.progress();
    if (block !== null && block >= head) break;
    if (performance.now() > deadline) throw new Error(`the indexer is at block ${block} of ${head}`);
    await sleep(STATUS_POLL_MS);
  }
  const done = performance.now();
  const n = await debitCount(indexer);
  if (n !== expected) throw new Error(`the indexer shows ${n} debits, ${expected} were sent`);
  return done;
}

type Run = { events: number; seconds: number; cpu: number };

type Variant = { name: string; patched: boolean };

/** Starts Ponder on `chain`: wall time to /ready and its CPU until then (build, migrations, backfill). */
async function startTimed(chain: LocalChain, variant: Variant, cpus: string | undefined) {
  const started = performance.now();
  const indexer = await startIndexer(chain, {
    pollingMs: POLLING_MS,
    cpus,
    nodeArgs,
    postgres: POSTGRES_URL !== undefined,
    dataRoot: PGLITE_ROOT,
    patched: variant.patched,
  });
  return { indexer, seconds: (performance.now() - started) / 1000, cpu: processCpuSeconds(indexer.pid) };
}

/** `count` debits mined as fast as the chain goes while Ponder follows. */
async function realtime(load: DebitLoad, indexer: Indexer, sent: number, count: number, what = "realtime") {
  const debits = await signDebits(load, count);
  log(`${what}: ${count} debits mined as fast as the chain goes, Ponder following`);
  const cpu = processCpuSeconds(indexer.pid);
  const started = performance.now();
  await sendBatches(load, debits);
  const mined = performance.now();
  const done = await waitForDebits(load, indexer, sent + count);
  return {
    run: {
      events: count,
      seconds: (done - started) / 1000,
      cpu: processCpuSeconds(indexer.pid) - cpu,
    } satisfies Run,
    minedPerSecond: count / ((mined - started) / 1000),
    lagMs: done - mined,
  };
}

/**
 * Ponder's CPU per empty block in realtime: its CPU at rest (polling a chain with no new block) over IDLE_SECONDS,
 * then EMPTY_BLOCKS empty blocks mined one every EMPTY_GAP_MS until its `/status` has the last, less the rest rate
 * over that time.
 */
async function emptyBlocks(load: DebitLoad, indexer: Indexer, sent: number) {
  log(`empty blocks: ${IDLE_SECONDS} s at rest, then ${EMPTY_BLOCKS} empty blocks, one every ${EMPTY_GAP_MS} ms`);
  let cpu = processCpuSeconds(indexer.pid);
  let started = performance.now();
  await sleep(IDLE_SECONDS * 1000);
  const restPerSecond = (processCpuSeconds(indexer.pid) - cpu) / ((performance.now() - started) / 1000);
  cpu = processCpuSeconds(indexer.pid);
  started = performance.now();
  for (let i = 0; i < EMPTY_BLOCKS; i++) {
    await load.chain.connection.provider.request({ method: "evm_mine", params: [] });
    await sleep(EMPTY_GAP_MS);
  }
  await waitForDebits(load, indexer, sent);
  const seconds = (performance.now() - started) / 1000;
  const used = processCpuSeconds(indexer.pid) - cpu;
  return { restPerSecond, cpuPerBlock: (used - restPerSecond * seconds) / EMPTY_BLOCKS };
}

/** Registrations while debits flow at NORMAL_RATE: time from each registration's block to its row in the API. */
async function blockToListing(load: DebitLoad, indexer: Indexer, sent: number) {
  log(`block to listing: ${REGISTRATIONS} registrations while debits flow at ${NORMAL_RATE}/s`);
  const client = createProjectionsClient(indexer.url);
  const debits = await signDebits(load, NORMAL_RATE * Math.ceil((REGISTRATIONS * 0.7 + 5) * 1.2));
  const cpu = processCpuSeconds(indexer.pid);
  const started = performance.now();
  let flowing = true;
  const flow = sendBatches(load, debits, (1000 * BATCH) / NORMAL_RATE).finally(() => {
    flowing = false;
  });
  const samples: number[] = [];
  for (let i = 0; i < REGISTRATIONS && flowing; i++) {
    await sleep(300 + Math.random() * POLLING_MS);
    const resourceId = await load.chain.registerResource({ slug: `late-${i}`, creatorIndex: ROLE.other });
    const mined = performance.now();
    for (;;) {
      const rows = await client.db
        .select({ id: projections.resource.resourceId })
        .from(projections.resource)
        .where(eq(projections.resource.resourceId, resourceId));
      if (rows.length > 0) break;
      if (performance.now() - mined > 30_000) throw new Error(`late-${i} was not indexed within 30 s`);
      await sleep(5);
    }
    samples.push(performance.now() - mined);
  }
  await flow;
  await waitForDebits(load, indexer, sent + debits.length);
  const seconds = (performance.now() - started) / 1000;
  return {
    events: debits.length,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    max: Math.max(...samples),
    samples: samples.length,
    rate: debits.length / seconds,
    cpuPerEvent: (processCpuSeconds(indexer.pid) - cpu) / debits.length,
  };
}

/** A fresh Ponder over the `sent` debits already on chain; its start-up on the empty chain (`empty`) subtracted. */
async function backfill(
  load: DebitLoad,
  variant: Variant,
  cpus: string | undefined,
  sent: number,
  empty: { seconds: number; cpu: number },
) {
  log(`backfill: a fresh Ponder over the ${sent} debits on chain`);
  const started = performance.now();
  const { indexer } = await startTimed(load.chain, variant, cpus);
  try {
    const done = await waitForDebits(load, indexer, sent);
    const seconds = (done - started) / 1000 - empty.seconds;
    return { events: sent, seconds, cpu: processCpuSeconds(indexer.pid) - empty.cpu } satisfies Run;
  } finally {
    await indexer.stop();
  }
}

/** Every phase for one variant of Ponder, on a fresh chain. */
async function measure(variant: Variant, cpus: string | undefined) {
  log(`${variant.name}: starting a fresh chain`);
  const chain = await startLocalChain();
  try {
    const load = await prepare(chain);
    const empty = await startTimed(chain, variant, cpus);
    const { indexer } = empty;
    let sent = 0;
    try {
      if (WARM_UP > 0) {
        const warm = await realtime(load, indexer, sent, WARM_UP, "warm-up (not counted)");
        sent += WARM_UP;
        log(`  warm-up: ${ms(warm.run.cpu / warm.run.events)} CPU per event`);
      }
      const rt = await realtime(load, indexer, sent, REALTIME);
      sent += REALTIME;
      log(
        `  realtime: mined ${Math.round(rt.minedPerSecond)}/s, indexed ${perSecond(rt.run)}/s, ${ms(rt.run.cpu / rt.run.events)} CPU per event, lag ${rt.lagMs.toFixed(0)} ms`,
      );
      const emptyBlock = EMPTY_BLOCKS > 0 ? await emptyBlocks(load, indexer, sent) : undefined;
      if (emptyBlock)
        log(
          `  empty blocks: ${ms(emptyBlock.cpuPerBlock)} CPU per block (at rest ${ms(emptyBlock.restPerSecond)} CPU per second)`,
        );
      if (METRICS_FILE)
        writeFileSync(
          `${METRICS_FILE}.${variant.patched ? "patched" : "installed"}`,
          await (await fetch(`${indexer.url}/metrics`)).text(),
        );
      const listing = await blockToListing(load, indexer, sent);
      sent += listing.events;
      log(
        `  block to listing at ${Math.round(listing.rate)} debits/s: p50 ${listing.p50.toFixed(0)} ms, p95 ${listing.p95.toFixed(0)} ms, ${ms(listing.cpuPerEvent)} CPU per event`,
      );
      await indexer.stop();
      const back = await backfill(load, variant, cpus, sent, empty);
      log(`  backfill: ${perSecond(back)} events/s, ${ms(back.cpu / back.events)} CPU per event`);
      return { variant, rt, emptyBlock, listing, back };
    } finally {
      await indexer.stop();
    }
  } finally {
    await chain.close();
  }
}

const ms = (seconds: number) => `${(seconds * 1000).toFixed(2)} ms`;
const perSecond = (r: Run) => Math.round(r.events / r.seconds).toLocaleString("en-US");
const capacity = (r: Run) => Math.round(r.events / r.cpu).toLocaleString("en-US");

async function main(): Promise<void> {
  const pinned = hasTaskset();
  const cpus = pinned ? PONDER_CPU : undefined;
  if (pinned && os.cpus().length > 1)
    execFileSync("taskset", ["-a", "-cp", "0", String(process.pid)], { stdio: "ignore" });
  const loadBefore = os.loadavg()[0] ?? 0;
  const variants: Variant[] = [
    { name: "Ponder 0.16.6 as installed", patched: false, key: "installed" },
    { name: "with indexer/ponder/patches.ts (what the stack runs)", patched: true, key: "patched" },
  ].filter((variant) => VARIANTS.includes(variant.key));
  const results = [];
  for (const variant of variants) results.push(await measure(variant, cpus));
  const loadAfter = os.loadavg()[0] ?? 0;
  const rows = results.flatMap(({ variant, rt, listing, back }) => [
    `| ${variant.name} | realtime (mined at ${Math.round(rt.minedPerSecond).toLocaleString("en-US")}/s; last block to API ${rt.lagMs.toFixed(0)} ms) | ${rt.run.events} | ${perSecond(rt.run)} | ${ms(rt.run.cpu / rt.run.events)} | ${capacity(rt.run)} |`,
    `| | realtime at a normal rate (${Math.round(listing.rate)} debits/s) | ${listing.events} | | ${ms(listing.cpuPerEvent)} | ${Math.round(1 / listing.cpuPerEvent).toLocaleString("en-US")} |`,
    `| | backfill (a fresh Ponder over all of them) | ${back.events} | ${perSecond(back)} | ${ms(back.cpu / back.events)} | ${capacity(back)} |`,
  ]);
  const emptyRows = results.flatMap(({ variant, emptyBlock }) =>
    emptyBlock
      ? [`| ${variant.name} | ${EMPTY_BLOCKS} | ${ms(emptyBlock.cpuPerBlock)} | ${ms(emptyBlock.restPerSecond)} |`]
      : [],
  );
  const listingRows = results.map(
    ({ variant, listing }) =>
      `| ${variant.name} | ${listing.samples} | ${listing.p50.toFixed(0)} ms | ${listing.p95.toFixed(0)} ms | ${listing.max.toFixed(0)} ms |`,
  );
  const markdown = `## Indexer

Command: \`npm run bench:indexer\` (bench/indexer.ts). Machine: ${machineLine()}; shared with other work while it
ran (1-minute load average ${loadBefore.toFixed(1)} at the start and ${loadAfter.toFixed(1)} at the end, on ${os.cpus().length} cores), so
events/s are what Ponder got of its core, not what it can do: "events per CPU second" is the steadier figure. Ponder
(PGlite, polling ${POLLING_MS} ms) ${pinned ? `pinned to CPU ${PONDER_CPU} (\`taskset -c ${PONDER_CPU}\`)` : "not pinned (no taskset here)"}; the chain (Hardhat EDR,
automine) and the load in the bench's process${pinned ? " on CPU 0" : ""}. Debits go in \`debitBatchCompact\`
transactions of ${BATCH}, one block each, over ${BUYERS} buyers and ${RESOURCES} resources; each variant on a fresh
chain, Ponder started before the first debit (as a long-running indexer is) and given ${WARM_UP.toLocaleString("en-US")} debits in
realtime first, not counted (its first thousands of events after a start run while V8 still compiles its hot paths).
CPU is the Ponder process's user + system time (\`/proc/<pid>/stat\`); events/s run until its \`/status\` reaches the
head and \`/sql\` shows every debit. The bench asks \`/status\` every ${STATUS_POLL_MS} ms while it waits, as the
marketplace's catalog sync does; those answers are Ponder's work too. Backfill subtracts the start-up of the same
Ponder on the chain before any debit.

| Ponder | phase | events | events/s | CPU per event | events per CPU second |
|---|---|---:|---:|---:|---:|
${rows.join("\n")}

${
  emptyRows.length > 0
    ? `Per-block overhead: what Ponder spends on a block whatever its events, from empty blocks mined one every
${EMPTY_GAP_MS} ms after the realtime phase; its CPU at rest (polling the chain, ${IDLE_SECONDS} s with no new block) is
subtracted.

| Ponder | empty blocks | CPU per empty block | CPU per second at rest |
|---|---:|---:|---:|
${emptyRows.join("\n")}

`
    : ""
}Block to listing under the normal rate: a resource registered every ~${300 + POLLING_MS / 2} ms; the time from its
block to its row in the indexer's \`/sql\` (polled every 5 ms). The marketplace's catalog sync (every 100 ms) comes on
top (see Discovery).

| Ponder | registrations | p50 | p95 | max |
|---|---:|---:|---:|---:|
${listingRows.join("\n")}

Targets: >= 2,000 \`Debited\` events/s on one core in realtime (at most 0.5 ms of CPU per event); block to listing
p95 <= 1 s.

${results
  .flatMap(({ variant, rt, listing }) => [
    `- ${variant.name}: >= 2,000 events/s on one core in realtime ${rt.run.events / rt.run.cpu >= 2_000 ? "met" : "missed"} (${capacity(rt.run)} events per CPU second); block to listing p95 <= 1 s ${listing.p95 <= 1_000 ? "met" : "missed"} (${listing.p95.toFixed(0)} ms).`,
  ])
  .join("\n")}`;
  writeBenchSection("indexer", markdown);
  log("wrote the indexer section of docs/benchmarks.md");
}

await main();
process.exit(0);
