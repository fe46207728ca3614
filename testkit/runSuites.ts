import { spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * `node testkit/runSuites.ts <lane>…`: runs lanes of npm scripts side by side (the test suites of `npm test`: they
 * share no port, schema or directory). A lane is one script, or several joined by `,` that run one after another in
 * that lane (the short suites share a lane, so the machine is not asked for a dozen processes at once while the long
 * suites start their stacks). Keeps each script's output apart and prints it whole when it ends, says every minute
 * which are still running, and ends with each one's wall time. A failed script does not stop its lane. Exits 1 when
 * any failed.
 * @example node testkit/runSuites.ts typecheck,test:contracts test:services test:e2e
 */
const lanes = process.argv.slice(2).map((lane) => lane.split(",").filter(Boolean));
if (lanes.length === 0 || lanes.some((lane) => lane.length === 0)) {
  process.stderr.write("usage: node testkit/runSuites.ts <npm script>[,<npm script>...] ...\n");
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), "suites-"));
const started = performance.now();
const seconds = (from: number) => Math.round((performance.now() - from) / 1000);
const say = (line: string) => process.stdout.write(`[suites ${String(seconds(started)).padStart(4)} s] ${line}\n`);

type Outcome = { name: string; code: number; seconds: number };
const running = new Set<string>();
const heartbeat = setInterval(() => say(`still running: ${[...running].join(", ")}`), 60_000);
let logs = 0;

function runScript(name: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const log = join(dir, `${logs++}.log`);
    const out = createWriteStream(log);
    const from = performance.now();
    const child = spawn("npm", ["run", "--silent", name], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    running.add(name);
    say(`${name}: started`);
    child.on("close", (status, signal) => {
      out.end(() => {
        running.delete(name);
        const code = status ?? (signal ? 1 : 0);
        process.stdout.write(`\n${readFileSync(log, "utf8").trimEnd()}\n\n`);
        say(`${name}: ${code === 0 ? "passed" : `FAILED (exit ${code})`} in ${seconds(from)} s`);
        resolve({ name, code, seconds: seconds(from) });
      });
    });
  });
}

async function runLane(names: string[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const name of names) outcomes.push(await runScript(name));
  return outcomes;
}

const outcomes = (await Promise.all(lanes.map(runLane))).flat();
clearInterval(heartbeat);
rmSync(dir, { recursive: true, force: true });

say(`done: ${outcomes.map((o) => `${o.name} ${o.code === 0 ? "passed" : "FAILED"} (${o.seconds} s)`).join(", ")}`);
process.exit(outcomes.some((o) => o.code !== 0) ? 1 : 0);
