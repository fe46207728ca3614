import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCommandLine } from "../services/stack/parseCommandLine.ts";
import { sleep } from "../testkit/sleep.ts";
import { envCount } from "./benchEnv.ts";
import { machineLine, writeBenchSection } from "./benchReport.ts";

/**
 * `npm run bench:start`: time from `npm start` to a written stack.json (ready), and the resident memory of every
 * process of the stack once ready (summed RSS over its process group). Dependencies must already be installed.
 * Writes the "start" section of docs/benchmarks.md.
 */
parseCommandLine(
  `usage: npm run bench:start

Time from \`npm start\` to a written stack.json, and the memory of the stack once ready; writes the "start" section of
docs/benchmarks.md. Environment: BENCH_RUNS (2).`,
  {},
);

const RUNS = envCount("BENCH_RUNS", 2);
const root = new URL("..", import.meta.url).pathname;
const results: { seconds: number; rssMiB: number; processes: number }[] = [];

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
    results.push({ seconds, rssMiB: rss.reduce((a, b) => a + b, 0) / 1024, processes: rss.length });
    process.stderr.write(
      `[bench:start] run ${run + 1}: ready in ${seconds.toFixed(1)} s, ${(rss.reduce((a, b) => a + b, 0) / 1024).toFixed(0)} MiB in ${rss.length} processes\n`,
    );
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
`;
writeBenchSection("start", markdown);
process.stdout.write(markdown);
process.exit(0);
