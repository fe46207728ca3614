import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCommandLine } from "../services/stack/parseCommandLine.ts";
import { sleep } from "../testkit/sleep.ts";
import type { StackCpu } from "../testkit/stack/stackCpu.ts";
import { cpuSince, readStackCpu, STACK_PARTS } from "../testkit/stack/stackCpu.ts";
import { envCount } from "./benchEnv.ts";
import { machineLine, writeBenchSection } from "./benchReport.ts";

/**
 * `npm run bench:start`: time from `npm start` to a written stack.json (ready), the resident memory of every process
 * of the stack once ready (summed RSS over its process group), and the CPU the idle stack spends per second, by part
 * (the work it does whatever its traffic: following the chain's blocks, polling, syncing). Dependencies must already
 * be installed. Writes the "start" section of docs/benchmarks.md.
 */
parseCommandLine(
  `usage: npm run bench:start

Time from \`npm start\` to a written stack.json, the memory of the stack once ready, and the CPU per second of each of
its parts at rest (no traffic, from 30 s after ready); writes the "start" section of docs/benchmarks.md.
Environment: BENCH_RUNS (2), BENCH_START_IDLE_SECONDS (20, how long the idle stack is measured; 0 skips it).`,
  {},
);

const RUNS = envCount("BENCH_RUNS", 2);
const IDLE_SECONDS = envCount("BENCH_START_IDLE_SECONDS", 20, 0);
/** Time left to a ready stack before its rest is measured: the work of its first blocks and requests is done. */
const SETTLE_MS = 30_000;
const root = new URL("..", import.meta.url).pathname;

/** CPU seconds per second of each part of the stack under `rootPid`, over IDLE_SECONDS after SETTLE_MS. */
async function idleCpu(rootPid: number): Promise<StackCpu> {
  await sleep(SETTLE_MS);
  const before = readStackCpu(rootPid);
  const from = performance.now();
  await sleep(IDLE_SECONDS * 1000);
  const used = cpuSince(before, readStackCpu(rootPid));
  const seconds = (performance.now() - from) / 1000;
  return Object.fromEntries(Object.entries(used).map(([part, cpu]) => [part, cpu / seconds])) as StackCpu;
}

const total = (cpu: StackCpu) => Object.values(cpu).reduce((a, b) => a + b, 0);
const msPerSecond = (cpuSeconds: number) => (cpuSeconds * 1000).toFixed(0);

const results: { seconds: number; rssMiB: number; processes: number; idle: StackCpu | null }[] = [];

for (let run = 0; run < RUNS; run++) {
  const stackDir = mkdtempSync(join(tmpdir(), "stack-bench-"));
  const started = performance.now();
  const child = spawn("npm", ["start"], {
    cwd: root,
    // The test network's block time unless told otherwise: a block every 500 ms.
    env: { ...process.env, CHAIN_MINING: process.env.CHAIN_MINING ?? "interval", STACK_DIR: stackDir },
    stdio: "ignore",
    detached: true,
  });
  try {
    while (!existsSync(join(stackDir, "stack.json"))) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      if (performance.now() - started > 300_000) throw new Error("not ready after 300 s");
      await sleep(100);
    }
    const seconds = (performance.now() - started) / 1000;
    await sleep(2_000);
    const rss = execFileSync("ps", ["-o", "rss=", "-g", String(child.pid)], { encoding: "utf8" })
      .split("\n")
      .map((line) => Number(line.trim()))
      .filter((kb) => kb > 0);
    process.stderr.write(
      `[bench:start] run ${run + 1}: ready in ${seconds.toFixed(1)} s, ${(rss.reduce((a, b) => a + b, 0) / 1024).toFixed(0)} MiB in ${rss.length} processes\n`,
    );
    const idle = IDLE_SECONDS > 0 ? await idleCpu(child.pid as number) : null;
    if (idle)
      process.stderr.write(`[bench:start] run ${run + 1}: at rest ${msPerSecond(total(idle))} ms of CPU a second\n`);
    results.push({ seconds, rssMiB: rss.reduce((a, b) => a + b, 0) / 1024, processes: rss.length, idle });
  } finally {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {}
    await sleep(8_000);
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {}
    rmSync(stackDir, { recursive: true, force: true });
  }
}

// `npm start` as shipped runs no PostgreSQL server of its own.
const restParts = [...STACK_PARTS.filter((part) => part !== "postgres"), "other"] as const;
const restRows = results.flatMap(({ idle }, i) =>
  idle
    ? [`| ${i + 1} | ${restParts.map((part) => msPerSecond(idle[part])).join(" | ")} | ${msPerSecond(total(idle))} |`]
    : [],
);
const restTable = restRows.length
  ? `
CPU of the stack at rest, ms per second (no traffic; ${IDLE_SECONDS} s from /proc, starting ${SETTLE_MS / 1000} s after
ready; the chain mines a block every ${process.env.CHAIN_MINING === "auto" ? "transaction" : "500 ms"}):

| run | ${restParts.join(" | ")} | all |
|---|${restParts.map(() => "---|").join("")}---|
${restRows.join("\n")}
`
  : "";

const markdown = `
## Start-up

Command: \`npm run bench:start\` (bench/stack.ts), ${RUNS} runs after install. Machine: ${machineLine()}.

| run | \`npm start\` to ready (stack.json written) | resident memory of the whole stack | processes |
|---|---|---|---|
${results.map((r, i) => `| ${i + 1} | ${r.seconds.toFixed(1)} s | ${r.rssMiB.toFixed(0)} MiB | ${r.processes} |`).join("\n")}

Ready means: chain up, contracts deployed, indexer caught up, facilitator, host and marketplace ready, the four
samples published through the pipeline and three demo buyers funded. Memory is the summed RSS of every process
in the stack's process group (npm, the orchestrator, the chain, Ponder, the three services and one workerd per
resource), read 2 s after ready.
${restTable}`;
writeBenchSection("start", markdown);
process.stdout.write(markdown);
process.exit(0);
