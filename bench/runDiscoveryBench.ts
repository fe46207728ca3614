import type { ChildProcess } from "node:child_process";
import { fork } from "node:child_process";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { pino } from "pino";
import type { Hex } from "viem";
import { keccak256, stringToBytes } from "viem";
import { listen } from "../services/http/listen.ts";
import { createCatalog } from "../services/marketplace/catalog/createCatalog.ts";
import { createMarketplaceApp } from "../services/marketplace/createMarketplaceApp.ts";
import { loadMarketplaceConfig } from "../services/marketplace/loadMarketplaceConfig.ts";
import type { MarketplaceContext } from "../services/marketplace/marketplaceContext.ts";
import { savePendingListing } from "../services/marketplace/store/listings.ts";
import { percentile } from "../services/protocol/percentile.ts";
import { resourceIdOf } from "../services/protocol/resourceId.ts";
import { ROLE, startLocalChain } from "../testkit/chain/localChain.ts";
import { startIndexer } from "../testkit/indexer/startIndexer.ts";
import { startMarketplace } from "../testkit/marketplace/startMarketplace.ts";
import { validCard } from "../testkit/protocol/fixtures.ts";
import { sleep } from "../testkit/sleep.ts";
import { envCount } from "./benchEnv.ts";
import { machineLine, writeBenchSection } from "./benchReport.ts";

const SIZES = (process.env.BENCH_SIZES ?? "10000,100000").split(",").map(Number);
const REQUESTS = envCount("BENCH_REQUESTS", 300);
const REGISTRATIONS = envCount("BENCH_REGISTRATIONS", 40);
const POLLING = (process.env.BENCH_POLLING_MS ?? "250,1000").split(",").map(Number);
const CATEGORIES = 10;

const log = (line: string) => process.stderr.write(`[bench:discovery] ${line}\n`);

/** Deterministic pseudo-random numbers, so that every run lists the same synthetic resources. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Words of endpoint descriptions, most common first; the synthetic vocabulary follows them. */
const COMMON_WORDS =
  "text json data convert string number list format check parse extract count hash digest csv url email date time sort filter merge split validate encode decode base64 hex uuid slug case word sentence line character unit currency temperature length weight roman numeral markdown html xml yaml table column row key value array object field schema regex match replace trim pad reverse random checksum sha256 md5 hmac iban isbn phone address country city language translate summary statistics average median minimum maximum".split(
    " ",
  );
const VOCABULARY = [...COMMON_WORDS, ...Array.from({ length: 5_000 - COMMON_WORDS.length }, (_, i) => `term${i}`)];
const RARE_WORD = "palindrome";

/** Cumulative Zipf weights of {@link VOCABULARY} (the word of rank r drawn in proportion to 1 / r). */
const zipf = (() => {
  const cumulative = new Float64Array(VOCABULARY.length);
  let sum = 0;
  for (let rank = 0; rank < VOCABULARY.length; rank++) {
    sum += 1 / (rank + 1);
    cumulative[rank] = sum;
  }
  return cumulative;
})();

/**
 * Synthetic card text: words drawn from {@link VOCABULARY} by a Zipf law (as words of real prose fall), so a common word
 * sits in most cards and a rare one in few; {@link RARE_WORD} names 1 card in 1,000.
 */
function syntheticCard(next: () => number, i: number, resourceId: Hex): string {
  const word = () => {
    const x = next() * zipf[zipf.length - 1]!;
    let low = 0;
    let high = zipf.length - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (zipf[mid]! < x) low = mid + 1;
      else high = mid;
    }
    return VOCABULARY[low]!;
  };
  const words = (n: number) => Array.from({ length: n }, word).join(" ");
  const card = validCard();
  const name = i % 1000 === 7 ? `${RARE_WORD} ${words(2)}` : words(3);
  return JSON.stringify({
    ...card,
    name,
    description: `${words(16)}.`,
    skills: [{ ...card.skills[0]!, name, description: `${words(10)}.`, tags: [word(), word(), word()] }],
    x402: { ...card.x402, payTo: resourceId },
    identity: { ...card.identity, agentId: String(i) },
  });
}
/** Child process: builds a catalog of `size` synthetic resources through the catalog's own apply functions, and serves it. */
async function serve(size: number): Promise<void> {
  const config = loadMarketplaceConfig({
    RPC_URL: "http://127.0.0.1:1",
    INDEXER_URL: "http://127.0.0.1:1",
    TOKEN_ADDRESS: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    ESCROW_ADDRESS: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    REGISTRY_ADDRESS: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    IDENTITY_ADDRESS: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    OPERATOR_KEY: `0x${"11".repeat(32)}`,
  });
  const publicUrl = "https://market.example";
  const catalog = createCatalog({
    cardUrlOf: (id) => `${publicUrl}/${id}/.well-known/agent-card.json`,
    uptimeWindow: 100,
    healthWindow: 10,
  });
  const next = random(42);
  const creators = Array.from({ length: 100 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}` as Hex);
  const started = performance.now();
  for (let i = 0; i < size; i++) {
    const creator = creators[i % creators.length]!;
    const slug = `resource-${i}`;
    const resourceId = resourceIdOf(creator, slug);
    const base = BigInt(Math.floor(next() * 100) * 100);
    const cardText = syntheticCard(next, i, resourceId);
    catalog.applyListing({
      resourceId,
      resourceUrl: `https://host.example/r/${slug}`,
      cardText,
      sampleRequest: {},
      status: "published",
    });
    catalog.applyProbes(
      resourceId,
      Array.from({ length: 20 }, () => next() < 0.95),
    );
    catalog.applySettled(resourceId, Math.floor(next() * 200));
    catalog.applyResource({
      resourceId,
      creator,
      agentId: BigInt(i),
      slug,
      category: `cat-${i % CATEGORIES}`,
      base,
      perKB: 100n,
      max: base + 100_000n,
      bond: BigInt(Math.floor(next() * 10_000)) * 1_000n,
      active: next() < 0.9,
      cardHash: keccak256(stringToBytes(cardText)),
      strikesTotal: Math.floor(next() * 20),
      registeredBlock: BigInt(i),
    });
  }
  const loadMs = performance.now() - started;
  const ctx = {
    config,
    catalog,
    logger: pino({ level: "silent" }),
    publicUrl: () => publicUrl,
  } as unknown as MarketplaceContext;
  const server = await listen(createMarketplaceApp(ctx), 0, "127.0.0.1");
  process.send!({ port: (server.address() as AddressInfo).port, loadMs, rss: process.memoryUsage().rss });
}

async function startServer(size: number): Promise<{ child: ChildProcess; url: string; loadMs: number; rss: number }> {
  const child = fork(new URL("./marketplace.ts", import.meta.url).pathname, ["--serve", String(size)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: ["--max-old-space-size=4096"],
  });
  const message = await new Promise<{ port: number; loadMs: number; rss: number }>((resolve, reject) => {
    child.once("message", (m) => resolve(m as { port: number; loadMs: number; rss: number }));
    child.once("exit", (code) => reject(new Error(`the bench server exited with ${code}`)));
  });
  return { child, url: `http://127.0.0.1:${message.port}`, loadMs: message.loadMs, rss: message.rss };
}

async function latencies(
  url: string,
  count: number,
): Promise<{ p50: number; p99: number; total: string; bytes: number }> {
  const samples: number[] = [];
  let total = "";
  let bytes = 0;
  for (let i = 0; i < count + 20; i++) {
    const t = performance.now();
    const response = await fetch(url);
    const body = await response.arrayBuffer();
    const ms = performance.now() - t;
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    total = response.headers.get("x-total-count") ?? "";
    bytes = body.byteLength;
    if (i >= 20) samples.push(ms);
  }
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), total, bytes };
}

const SCENARIOS: [string, string][] = [
  ["no filter (default limit 1000)", ""],
  ["no filter, limit=50", "?limit=50"],
  ["no filter, deep page (offset=9000, limit=100)", "?offset=9000&limit=100"],
  ["category (1 in 10)", "?category=cat-3"],
  ["active=true&minBond=5000000", "?active=true&minBond=5000000"],
  ["price band + reputation + uptime", "?minBasePrice=1000&maxBasePrice=2000&minReputation=60&minUptime=90"],
  ["selective: category + minBond=9990000 (few matches, full scan)", "?category=cat-3&minBond=9990000"],
  ["q: a rare word (1 card in 1,000)", `?q=${RARE_WORD}`],
  ["q: three common words (`to` is a stop word)", "?q=convert+csv+to+json"],
  ["q: the commonest word (in most cards), limit=50", "?q=text&limit=50"],
  ["q: the commonest word + category + active", "?q=text&category=cat-3&active=true"],
  ["q: the commonest word (every card it is in ranked, 1000 returned)", "?q=text"],
];

const readP50: { size: number; p50: number; text: boolean }[] = [];
const builds: string[] = [];

async function readLatency(): Promise<string> {
  const rows: string[] = [];
  for (const size of SIZES) {
    log(`building ${size} synthetic resources`);
    const server = await startServer(size);
    try {
      const built = `${(server.loadMs / 1000).toFixed(1)} s, server RSS ${Math.round(server.rss / 2 ** 20)} MiB`;
      builds.push(`${size.toLocaleString("en-US")}: ${built}`);
      log(`  built in ${built}`);
      for (const [name, query] of SCENARIOS) {
        const r = await latencies(`${server.url}/resources${query}`, REQUESTS);
        readP50.push({ size, p50: r.p50, text: query.startsWith("?q=") });
        log(
          `  ${size} ${name}: p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms (${r.total} match, ${Math.round(r.bytes / 1024)} KiB)`,
        );
        rows.push(
          `| ${size.toLocaleString("en-US")} | ${name} | \`${query || "/resources"}\` | ${Number(r.total).toLocaleString("en-US")} | ${Math.round(r.bytes / 1024)} KiB | ${r.p50.toFixed(2)} ms | ${r.p99.toFixed(2)} ms |`,
        );
      }
    } finally {
      server.child.kill();
    }
  }
  return rows.join("\n");
}

async function blockToListing(pollingMs: number): Promise<{ p50: number; p95: number; max: number; samples: number }> {
  log(`block to listing: chain, Ponder (PGlite, polling ${pollingMs} ms) and the marketplace`);
  const chain = await startLocalChain();
  const indexer = await startIndexer(chain, { pollingMs });
  const marketplace = await startMarketplace(chain, indexer, { env: { SYNC_INTERVAL_MS: "100" } });
  const samples: number[] = [];
  try {
    const creatorIndex = ROLE.creator;
    const creator = chain.address(creatorIndex);
    for (let i = 0; i < REGISTRATIONS; i++) {
      const slug = `late-${i}`;
      const resourceId = resourceIdOf(creator, slug);
      await savePendingListing(marketplace.ctx.store, {
        resourceId,
        creator,
        slug,
        resourceUrl: `https://host.example/r/${slug}`,
        cardText: "{}",
        cardHash: keccak256(stringToBytes("{}")),
        sampleRequest: {},
        agentId: "0",
      });
      await sleep(300 + Math.random() * pollingMs);
      await chain.registerResource({ slug, creatorIndex, cardHash: keccak256(stringToBytes("{}")) });
      const mined = performance.now();
      const url = `${marketplace.url}/resources?category=tools&limit=1&offset=${i}`;
      for (;;) {
        const body = (await (await fetch(url)).json()) as { resourceId: string }[];
        if (body[0]?.resourceId === resourceId) break;
        if (performance.now() - mined > 30_000) throw new Error(`${slug} was not listed within 30 s`);
        await sleep(5);
      }
      samples.push(performance.now() - mined);
    }
  } finally {
    await marketplace.stop();
    await indexer.stop();
    await chain.close();
  }
  return {
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    max: Math.max(...samples),
    samples: samples.length,
  };
}

async function main(): Promise<void> {
  const loadBefore = os.loadavg()[0]!;
  const reads = await readLatency();
  const loadAfterReads = os.loadavg()[0]!;
  const listing: string[] = [];
  const listingP95 = new Map<number, number>();
  for (const pollingMs of POLLING) {
    const r = await blockToListing(pollingMs);
    log(
      `  polling ${pollingMs} ms: p50 ${r.p50.toFixed(0)} ms, p95 ${r.p95.toFixed(0)} ms, max ${r.max.toFixed(0)} ms`,
    );
    listing.push(
      `| ${pollingMs} ms | ${r.samples} | ${r.p50.toFixed(0)} ms | ${r.p95.toFixed(0)} ms | ${r.max.toFixed(0)} ms |`,
    );
    listingP95.set(pollingMs, r.p95);
  }
  const largest = readP50.filter((row) => row.size === Math.max(...SIZES));
  const worstP50 = Math.max(...largest.map((row) => row.p50));
  const worstTextP50 = Math.max(...largest.filter((row) => row.text).map((row) => row.p50));
  const verdicts = [
    `- p50 <= 20 ms at ${Math.max(...SIZES).toLocaleString("en-US")} resources: ${worstP50 <= 20 ? "met" : "missed"} (slowest query's p50 ${worstP50.toFixed(2)} ms).`,
    `- p50 <= 20 ms for a \`q\` query at ${Math.max(...SIZES).toLocaleString("en-US")} resources: ${worstTextP50 <= 20 ? "met" : "missed"} (slowest \`q\` row's p50 ${worstTextP50.toFixed(2)} ms).`,
    ...[...listingP95].map(
      ([polling, p95]) =>
        `- p95 <= 1 s from block to listing with Ponder polling ${polling} ms: ${p95 <= 1_000 ? "met" : "missed"} (${p95.toFixed(0)} ms).`,
    ),
  ];
  const markdown = `## Discovery

Command: \`npm run bench:discovery\` (bench/marketplace.ts). Machine: ${machineLine()}; shared with other
work while it ran (1-minute load average ${loadBefore.toFixed(1)} at the start and ${loadAfterReads.toFixed(1)} after the
reads, on ${os.cpus().length} cores).

\`GET /resources\` over synthetic resources: the records are built through the catalog's own apply functions (the
path the indexer sync takes) and served by the real Koa app in a child process; ${REQUESTS} requests per row, one at a
time, after 20 warm-up requests, timed from the client (loopback HTTP, body fully read). Categories are spread 1 in
${CATEGORIES}; about 90 % are active. Each resource has a strict card (validated and indexed as the sync does) whose
name, description, skill and tags are words drawn by a Zipf law from a 5,000-word vocabulary led by common endpoint
words (\`text\` first), so \`q=text\` matches nearly every card and \`q=${RARE_WORD}\` 1 in 1,000. Built in
${builds.join("; ")}.

| resources | query | path | matches | body | p50 | p99 |
|---:|---|---|---:|---:|---:|---:|
${reads}

Block to listing: a resource is registered on the local chain (Hardhat EDR, automine) while its listing is already
written, as the publish pipeline's index stage does; the figure is the time from the mined block to the first
\`GET /resources\` that lists it (polled every 5 ms), through Ponder (PGlite) and the catalog sync (every 100 ms).
Ponder's realtime polling interval is the main term: 250 ms is the indexer's default here (\`PONDER_POLLING_MS\`),
1000 ms Ponder's own.

| Ponder polling | registrations | p50 | p95 | max |
|---:|---:|---:|---:|---:|
${listing.join("\n")}

Targets: p50 <= 20 ms at 100k resources (a \`q\` query included); p95 <= 1 s from block to listing.

${verdicts.join("\n")}`;
  writeBenchSection("discovery", markdown);
  log("wrote the discovery section of docs/benchmarks.md");
}

/**
 * The bench, or with `serveSize` its own child process: the HTTP server over a synthetic catalog of that size.
 * @example await runDiscoveryBench(values.serve === undefined ? undefined : Number(values.serve))
 */
export async function runDiscoveryBench(serveSize: number | undefined): Promise<void> {
  if (serveSize !== undefined) return serve(serveSize);
  await main();
  process.exit(0);
}
