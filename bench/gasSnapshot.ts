/**
 * The contracts' gas snapshot: runs the contract tests with Hardhat's gas statistics and compares the median gas of
 * each function of our contracts (and of each one's deployment) with the committed test/contracts/gasSnapshot.json;
 * `--write` rewrites the file; `--all` also runs the contract tests that take no figures, so that `npm test` runs
 * every file of `npm run test:contracts` once and not twice. `npm run gas:check`, `npm run gas:snapshot`.
 */
import { spawnSync } from "node:child_process";
import { globSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import hre from "hardhat";
import { parseCommandLine, usageError } from "../services/stack/parseCommandLine.ts";
import { compareGasSnapshots, gasCheckFails } from "./gas/compareGasSnapshots.ts";
import { compilerSettingsOf, describeCompilerSettings } from "./gas/compilerSettings.ts";
import type { GasSnapshot, GasStatsJson } from "./gas/gasSnapshotOf.ts";
import { gasSnapshotOf, SNAPSHOT_CONTRACTS } from "./gas/gasSnapshotOf.ts";

const DEFAULT_TOLERANCE_PERCENT = 1;
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SNAPSHOT = join(ROOT, "test/contracts/gasSnapshot.json");
/**
 * The contract tests, but the fast-check properties: their inputs are random on every run and move a function's
 * median by up to 5%; without them the medians of two runs differ by at most 0.02% (the block time in calldata).
 */
const TEST_FILES = globSync("test/contracts/*/*.test.ts", { cwd: ROOT })
  .filter((file) => !file.endsWith("/properties.test.ts"))
  .sort();
/**
 * The rest of `npm run test:contracts` (the properties, the Ignition module's tests), run by `--all`: the files its
 * script in package.json names, so that a folder added there is run by `npm test` too.
 */
const UNMETERED_FILES = (
  JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts["test:contracts"]!.split(/\s+/)
  .filter((word) => word.endsWith(".test.ts"))
  .flatMap((pattern) => globSync(pattern, { cwd: ROOT }))
  .filter((file) => !TEST_FILES.includes(file))
  .sort();

const USAGE = `usage: npm run gas:check [-- --tolerance <percent>] [--all] [--no-compile]
       npm run gas:snapshot

Runs the contract tests (test/contracts/ but the fast-check properties, whose inputs are random) with Hardhat's gas
statistics, and compares the median gas of each function of ${SNAPSHOT_CONTRACTS.join(", ")} that they call, and of
each one's deployment, with test/contracts/gasSnapshot.json. Exits 1 when a figure exceeds the snapshot's by more than
the tolerance (default ${DEFAULT_TOLERANCE_PERCENT}%), when the snapshot lacks a figure or has one no test measures any
more, or when it was taken under other compiler settings. --write (npm run gas:snapshot) rewrites the snapshot. --all
also runs the rest of npm run test:contracts (the properties, the Ignition module's tests) and prints every test.
--no-compile takes the contracts as built (npm test builds them first, and a second build beside the suites' would
race theirs for Hardhat's cache file).`;

const { values } = parseCommandLine(USAGE, {
  options: {
    write: { type: "boolean", default: false },
    tolerance: { type: "string" },
    all: { type: "boolean", default: false },
    "no-compile": { type: "boolean", default: false },
  },
});
const tolerance = values.tolerance === undefined ? DEFAULT_TOLERANCE_PERCENT : Number(values.tolerance);
if (!Number.isFinite(tolerance) || tolerance < 0)
  usageError(USAGE, `--tolerance ${values.tolerance} is not a percentage`);

/** Runs `hardhat test mocha` on `files` (and `args`); exits 1 with its output when a test fails, says `failed`. */
function hardhatTest(files: string[], args: string[], failed: string): string {
  const hardhat = join(ROOT, "node_modules/.bin/hardhat");
  const compile = values["no-compile"] ? ["--no-compile"] : [];
  const run = spawnSync(hardhat, ["test", "mocha", ...compile, ...args, ...files], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) {
    process.stderr.write(`${run.stdout}${run.stderr}\n${failed}\n`);
    process.exit(1);
  }
  return run.stdout;
}

/** Runs the contract tests with gas statistics; returns the snapshot of what they measured. */
function measure(): GasSnapshot {
  const dir = mkdtempSync(join(tmpdir(), "gas-snapshot-"));
  try {
    const statsFile = join(dir, "gas-stats.json");
    const output = hardhatTest(
      TEST_FILES,
      ["--gas-stats-json", statsFile],
      "the contract tests failed: no gas figures taken",
    );
    if (values.all) process.stdout.write(output);
    return gasSnapshotOf(JSON.parse(readFileSync(statsFile, "utf8")) as GasStatsJson, compilerSettingsOf(hre));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const format = (gas: number) => gas.toLocaleString("en-US");
const measured = measure();
if (values.all) process.stdout.write(hardhatTest(UNMETERED_FILES, [], "the contract tests failed"));
if (values.write) {
  writeFileSync(SNAPSHOT, `${JSON.stringify(measured, null, 2)}\n`);
  const count = Object.values(measured.contracts).reduce((sum, c) => sum + Object.keys(c.functions).length + 1, 0);
  process.stdout.write(`wrote ${count} figures to test/contracts/gasSnapshot.json\n`);
  process.exit(0);
}
let committed: GasSnapshot;
try {
  committed = JSON.parse(readFileSync(SNAPSHOT, "utf8")) as GasSnapshot;
} catch {
  process.stderr.write("no test/contracts/gasSnapshot.json: run npm run gas:snapshot\n");
  process.exit(1);
}
const comparison = compareGasSnapshots(committed, measured, tolerance);
const lines: string[] = [];
if (comparison.compilerChanged)
  lines.push(
    `the snapshot was taken under ${describeCompilerSettings(committed.compiler)}, the contracts are built with ${describeCompilerSettings(measured.compiler)}`,
  );
for (const c of comparison.increases)
  lines.push(`costlier: ${c.name} ${format(c.before)} -> ${format(c.after)} (+${c.percent.toFixed(2)}%)`);
for (const name of comparison.added) lines.push(`not in the snapshot: ${name}`);
for (const name of comparison.removed) lines.push(`in the snapshot, measured no more: ${name}`);
for (const c of comparison.decreases)
  process.stdout.write(`cheaper: ${c.name} ${format(c.before)} -> ${format(c.after)} (${c.percent.toFixed(2)}%)\n`);
if (gasCheckFails(comparison)) {
  process.stderr.write(
    `${lines.join("\n")}\n\ngas check failed (tolerance ${tolerance}%); if the change is meant, run npm run gas:snapshot and commit test/contracts/gasSnapshot.json\n`,
  );
  process.exit(1);
}
process.stdout.write(
  `gas check passed: every figure of ${SNAPSHOT_CONTRACTS.join(", ")} within ${tolerance}% of test/contracts/gasSnapshot.json\n`,
);
