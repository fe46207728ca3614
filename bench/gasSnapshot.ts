/**
 * The contracts' gas snapshot: runs the contract tests with Hardhat's gas statistics and compares the median gas of
 * each function of our contracts (and of each one's deployment) with the committed test/contracts/gasSnapshot.json;
 * `--write` rewrites the file. `npm run gas:check`, `npm run gas:snapshot`.
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

const USAGE = `usage: npm run gas:check [-- --tolerance <percent>]
       npm run gas:snapshot

Runs the contract tests (test/contracts/ but the fast-check properties, whose inputs are random) with Hardhat's gas
statistics, and compares the median gas of each function of ${SNAPSHOT_CONTRACTS.join(", ")} that they call, and of
each one's deployment, with test/contracts/gasSnapshot.json. Exits 1 when a figure exceeds the snapshot's by more than
the tolerance (default ${DEFAULT_TOLERANCE_PERCENT}%), when the snapshot lacks a figure or has one no test measures any
more, or when it was taken under other compiler settings. --write (npm run gas:snapshot) rewrites the snapshot.`;

const { values } = parseCommandLine(USAGE, {
  options: { write: { type: "boolean", default: false }, tolerance: { type: "string" } },
});
const tolerance = values.tolerance === undefined ? DEFAULT_TOLERANCE_PERCENT : Number(values.tolerance);
if (!Number.isFinite(tolerance) || tolerance < 0)
  usageError(USAGE, `--tolerance ${values.tolerance} is not a percentage`);

/** Runs the contract tests with gas statistics; returns the snapshot of what they measured. */
function measure(): GasSnapshot {
  const dir = mkdtempSync(join(tmpdir(), "gas-snapshot-"));
  try {
    const statsFile = join(dir, "gas-stats.json");
    const hardhat = join(ROOT, "node_modules/.bin/hardhat");
    const run = spawnSync(hardhat, ["test", "mocha", "--gas-stats-json", statsFile, ...TEST_FILES], {
      cwd: ROOT,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    if (run.status !== 0) {
      process.stderr.write(`${run.stdout}${run.stderr}\nthe contract tests failed: no gas figures taken\n`);
      process.exit(1);
    }
    return gasSnapshotOf(JSON.parse(readFileSync(statsFile, "utf8")) as GasStatsJson, compilerSettingsOf(hre));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const format = (gas: number) => gas.toLocaleString("en-US");
const measured = measure();
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
