import { spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { failureRecap } from "./failureRecap.ts";

/**
 * `node testkit/runSuites.ts [--batch] <lane>…`: runs lanes of npm scripts side by side (the test suites of `npm
 * test`: they share no port, schema or directory). A lane is one script, or several joined by `,` that run one after
 * another in that lane (the short suites share a lane, so the machine is not asked for a dozen processes at once while
 * the long suites start their stacks). A lane after `--batch` runs under `nice -n BATCH_NICENESS`: work with no
 * deadline of its own (type checks, the gas snapshot, the Solidity tests) then takes only the CPU the others leave,
 * and the suites that start stacks with deadlines keep it on a busy machine. Keeps each script's output apart and
 * prints it whole when it ends, says every minute which are still running, and ends with each one's wall time. A
 * failed script does not stop its lane; its failures are printed once more at the very end (a CI log is often read
 * from its end, where they would otherwise be buried under the output of the suites that finished later). Exits 1 when
 * any failed.
 * @example node testkit/runSuites.ts test:services test:e2e --batch typecheck,test:contracts
 */
const usage = "usage: node testkit/runSuites.ts [--batch] <npm script>[,<npm script>...] ...\n";

/** How much nicer than the other lanes a `--batch` lane runs. */
const BATCH_NICENESS = 10;

type Lane = { scripts: string[]; batch: boolean };
const lanes: Lane[] = [];
let nextIsBatch = false;
for (const arg of process.argv.slice(2)) {
  if (arg === "--batch") nextIsBatch = true;
  else {
    lanes.push({ scripts: arg.split(",").filter(Boolean), batch: nextIsBatch });
    nextIsBatch = false;
  }
}
// Still set: a `--batch` with no lane after it.
if (nextIsBatch || lanes.length === 0 || lanes.some((lane) => lane.scripts.length === 0)) {
  process.stderr.write(usage);
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), "suites-"));
const started = performance.now();
const seconds = (from: number) => Math.round((performance.now() - from) / 1000);
const say = (line: string) => process.stdout.write(`[suites ${String(seconds(started)).padStart(4)} s] ${line}\n`);

type Outcome = { name: string; code: number; seconds: number; output: string };

const running = new Set<string>();
const heartbeat = setInterval(() => say(`still running: ${[...running].join(", ")}`), 60_000);
let logs = 0;

function runScript(name: string, batch: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const log = join(dir, `${logs++}.log`);
    const out = createWriteStream(log);
    const from = performance.now();
    const npm = ["npm", "run", "--silent", name];
    const [command, ...args] = batch ? ["nice", "-n", String(BATCH_NICENESS), ...npm] : npm;
    const child = spawn(command!, args, { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    running.add(name);
    say(`${name}: started${batch ? ` (nice -n ${BATCH_NICENESS})` : ""}`);
    child.on("close", (status, signal) => {
      out.end(() => {
        running.delete(name);
        const code = status ?? (signal ? 1 : 0);
        const output = readFileSync(log, "utf8").trimEnd();
        process.stdout.write(`\n${output}\n\n`);
        say(`${name}: ${code === 0 ? "passed" : `FAILED (exit ${code})`} in ${seconds(from)} s`);
        resolve({ name, code, seconds: seconds(from), output: code === 0 ? "" : output });
      });
    });
  });
}

async function runLane({ scripts, batch }: Lane): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const name of scripts) outcomes.push(await runScript(name, batch));
  return outcomes;
}

const outcomes = (await Promise.all(lanes.map(runLane))).flat();
clearInterval(heartbeat);
rmSync(dir, { recursive: true, force: true });

for (const failed of outcomes.filter((o) => o.code !== 0)) {
  say(`${failed.name} FAILED; the end of its output once more:`);
  process.stdout.write(`\n${failureRecap(failed.output)}\n\n`);
}
say(`done: ${outcomes.map((o) => `${o.name} ${o.code === 0 ? "passed" : "FAILED"} (${o.seconds} s)`).join(", ")}`);
process.exit(outcomes.some((o) => o.code !== 0) ? 1 : 0);
