/**
 * The gate of `npm run coverage`: reads the LCOV report Hardhat wrote (`coverage/lcov.info`) and exits 1 unless every
 * line of each of our contracts was run by the contract tests. Prints each contract's line coverage.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseCommandLine } from "../../services/stack/parseCommandLine.ts";

const USAGE = `usage: node testkit/contracts/checkCoverage.ts

Reads coverage/lcov.info (written by \`npm run coverage\`) and exits 1 unless each of our contracts has every line
covered: ${["PaymentEscrow", "ResourceRegistry", "IdentityRegistry"].join(", ")}.`;

/** The contracts whose every line the contract tests must run. */
export const COVERED_CONTRACTS = [
  "contracts/PaymentEscrow.sol",
  "contracts/ResourceRegistry.sol",
  "contracts/IdentityRegistry.sol",
] as const;

/** Lines found and hit, and the numbers of the lines missed, of each source file in an LCOV report. */
export function lineCoverageOf(lcov: string): Map<string, { found: number; hit: number; missed: number[] }> {
  const files = new Map<string, { found: number; hit: number; missed: number[] }>();
  let current: { found: number; hit: number; missed: number[] } | undefined;
  for (const line of lcov.split("\n")) {
    if (line.startsWith("SF:")) {
      current = { found: 0, hit: 0, missed: [] };
      files.set(line.slice(3).trim(), current);
    } else if (line.startsWith("DA:") && current) {
      const [number, hits] = line.slice(3).split(",").map(Number);
      current.found += 1;
      if ((hits ?? 0) > 0) current.hit += 1;
      else current.missed.push(number ?? 0);
    }
  }
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  parseCommandLine(USAGE, {});
  const report = fileURLToPath(new URL("../../coverage/lcov.info", import.meta.url));
  let lcov: string;
  try {
    lcov = readFileSync(report, "utf8");
  } catch {
    process.stderr.write(`no coverage report at ${report}: run npm run coverage\n`);
    process.exit(1);
  }
  const files = lineCoverageOf(lcov);
  let short = false;
  for (const contract of COVERED_CONTRACTS) {
    const entry = [...files].find(([path]) => path === contract || path.endsWith(`/${contract}`))?.[1];
    if (!entry || entry.found === 0) {
      process.stderr.write(`${contract}: not in the coverage report\n`);
      short = true;
      continue;
    }
    const percent = ((100 * entry.hit) / entry.found).toFixed(2);
    const missed = entry.missed.length > 0 ? `, lines not run: ${entry.missed.join(", ")}` : "";
    process.stdout.write(`${contract}: ${percent}% of ${entry.found} lines${missed}\n`);
    if (entry.hit < entry.found) short = true;
  }
  if (short) {
    process.stderr.write("line coverage of the contracts is below 100%\n");
    process.exit(1);
  }
}
