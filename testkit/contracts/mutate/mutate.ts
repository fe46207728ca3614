/**
 * `npm run mutate`: mutation testing of the contracts. Generates mutants of PaymentEscrow, ResourceRegistry and
 * IdentityRegistry from their syntax tree (generateMutants.ts), and runs each in a temporary copy of the project
 * (never in the checkout's contracts/): type-checked first (under a second), then built with the project's settings,
 * then the contract tests (`npm run test:contracts -- --bail`) and, if they all pass, the Solidity fuzz and invariant
 * tests (`hardhat test solidity`, the CI profile of `npm run test:sol`); `--jobs n` runs n at a time, each in a copy
 * of its own. A mutant is killed when a test fails, survives when all pass, and is equivalent when
 * docs/audit/mutation.md lists it with the reason no test can kill it. Keeps every result of the contracts as they are
 * in docs/audit/mutation-report.json (and .md), with the commit they describe: a run reuses the results of mutants
 * whose contract is unchanged, when the tests are unchanged too or when the test that killed one is still there, so
 * a long run can be stopped, resumed and continued on another machine. Exits 1 when a mutant survives that
 * mutation.md does not list.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { globSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseCommandLine, usageError } from "../../../services/stack/parseCommandLine.ts";
import { copyProject } from "./copyProject.ts";
import { readEquivalentMutants } from "./equivalentMutants.ts";
import { firstFailingTest } from "./firstFailingTest.ts";
import type { Mutant, MutationOperator } from "./generateMutants.ts";
import { applyMutant, generateMutants, MUTATION_OPERATORS } from "./generateMutants.ts";
import type { Report, Result, Status, Tests } from "./reusableResult.ts";
import { partsOfKey, reusableResult } from "./reusableResult.ts";
import { typeCheckSolidity } from "./typeCheckSolidity.ts";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
/** The contracts mutated. */
export const MUTATED_CONTRACTS = ["PaymentEscrow.sol", "ResourceRegistry.sol", "IdentityRegistry.sol"] as const;
const EQUIVALENTS = join(ROOT, "docs/audit/mutation.md");
/** The results, kept with the commit they describe: a later run, on any machine, reuses them. */
const REPORT_JSON = join(ROOT, "docs/audit/mutation-report.json");
const REPORT_MD = join(ROOT, "docs/audit/mutation-report.md");
/** The tests a mutant runs against; a result is reused only while these and the contract are unchanged. */
const TEST_GLOBS = ["test/contracts/**/*.ts", "test/ignition/*.ts", "test/solidity/**/*.sol", "hardhat.config.ts"];

const USAGE = `usage: npm run mutate [-- <options>]

Mutants of ${MUTATED_CONTRACTS.join(", ")} from their syntax tree, each built and run against the contract
tests and the Solidity tests in a temporary copy of the project. Each mutant takes minutes (a build through the IR
pipeline, then the tests): narrow the run, and run it under nice on a shared machine.

  --contract <name>    only this contract (PaymentEscrow, ResourceRegistry, IdentityRegistry); repeatable
  --operator <name>    only this kind of mutant; repeatable: ${MUTATION_OPERATORS.join(", ")}
  --only <text>        only mutants whose id contains <text>; repeatable
  --limit <n>          at most n mutants of each contract, spread evenly over its selection
  --jobs <n>           run n mutants at a time, each in a copy of its own (default 1; each takes a core)
  --timeout <minutes>  a build or test step that takes longer counts the mutant as timed out (default 30)
  --list               print the selected mutants' ids and stop
  --fresh              ignore the results of earlier runs`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseCommandLine(USAGE, {
    options: {
      contract: { type: "string", multiple: true },
      operator: { type: "string", multiple: true },
      only: { type: "string", multiple: true },
      limit: { type: "string" },
      timeout: { type: "string", default: "30" },
      jobs: { type: "string", default: "1" },
      list: { type: "boolean", default: false },
      fresh: { type: "boolean", default: false },
    },
  });
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0)) usageError(USAGE, "--limit takes a whole number");
  const jobs = Number(values.jobs);
  if (!(Number.isInteger(jobs) && jobs > 0)) usageError(USAGE, "--jobs takes a whole number");
  const timeoutMinutes = Number(values.timeout);
  if (!(timeoutMinutes > 0)) usageError(USAGE, "--timeout takes a number of minutes");
  const contracts = (values.contract ?? []).map((name) => (name.endsWith(".sol") ? name : `${name}.sol`));
  for (const name of contracts) {
    if (!(MUTATED_CONTRACTS as readonly string[]).includes(name)) usageError(USAGE, `unknown contract: ${name}`);
  }
  for (const name of values.operator ?? []) {
    if (!(MUTATION_OPERATORS as readonly string[]).includes(name)) usageError(USAGE, `unknown operator: ${name}`);
  }
  const selected = selectMutants({
    contracts: contracts.length > 0 ? contracts : [...MUTATED_CONTRACTS],
    operators: values.operator as MutationOperator[] | undefined,
    only: values.only,
    limit,
  });
  if (values.list) {
    for (const { mutant } of selected) process.stdout.write(`${mutant.id}\n`);
    process.stdout.write(`${selected.length} mutants\n`);
    process.exit(0);
  }
  const exitCode = await runMutants(selected, { fresh: values.fresh, timeoutMs: timeoutMinutes * 60_000, jobs });
  process.exit(exitCode);
}

/**
 * The mutants of the chosen contracts, filtered, at most `limit` of each contract's spread evenly over them, the
 * contracts taken in turn (so that a run stopped early has met each of them).
 */
export function selectMutants(options: {
  contracts: string[];
  operators?: MutationOperator[];
  only?: string[];
  limit?: number;
}): Array<{ mutant: Mutant; source: string }> {
  const perContract = options.contracts.map((file) => {
    const source = readFileSync(join(ROOT, "contracts", file), "utf8");
    const chosen = generateMutants(source, file)
      .filter(
        (mutant) =>
          (!options.operators || options.operators.includes(mutant.operator)) &&
          (!options.only || options.only.some((text) => mutant.id.includes(text))),
      )
      .map((mutant) => ({ mutant, source }));
    const { limit } = options;
    if (limit === undefined || limit >= chosen.length) return chosen;
    const step = chosen.length / limit;
    return Array.from({ length: limit }, (_, i) => chosen[Math.floor(i * step)] as (typeof chosen)[number]);
  });
  const longest = Math.max(0, ...perContract.map((list) => list.length));
  return Array.from({ length: longest }, (_, i) => perContract.flatMap((list) => list.slice(i, i + 1))).flat();
}

async function runMutants(
  selected: Array<{ mutant: Mutant; source: string }>,
  { fresh, timeoutMs, jobs }: { fresh: boolean; timeoutMs: number; jobs: number },
): Promise<number> {
  const started = Date.now();
  const tests = currentTests();
  const contracts = currentContracts();
  const report: Report = fresh ? { results: {} } : readReport(REPORT_JSON);
  const equivalents = readEquivalentMutants(EQUIVALENTS);
  const keyOf = (mutant: Mutant, source: string) => `${mutant.id}#${hashOf([source])}#${tests.hash}`;
  const decided = (mutant: Mutant, source: string) => reusableResult(report, mutant.id, hashOf([source]), tests);
  const todo = selected.filter(({ mutant, source }) => !decided(mutant, source));
  say(`${selected.length} mutants selected, ${selected.length - todo.length} decided by an earlier run`);
  const lanes = Math.min(jobs, todo.length);
  const copies: string[] = [];
  try {
    if (lanes > 0) {
      for (let lane = 0; lane < lanes; lane += 1) copies.push(copyProject(ROOT));
      say(
        `${lanes} ${lanes === 1 ? "copy" : "copies"} of the project (${copies.join(", ")}); building, and running the tests on the contracts as they are`,
      );
      // The first copy runs every step on the contracts as they are; the others only need their build.
      const [baseline] = await Promise.all(
        copies.map((copy, lane) => (lane === 0 ? runSteps(copy, timeoutMs) : runSteps(copy, timeoutMs, ["build"]))),
      );
      if (baseline?.status !== "survived") {
        say(
          `the tests do not pass on the contracts as they are (${baseline?.by ?? baseline?.status}): nothing to measure`,
        );
        return 1;
      }
    }
    const queue = [...todo];
    let done = 0;
    await Promise.all(
      copies.map(async (copy) => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const { mutant, source } = next;
          const from = Date.now();
          const result = await runMutant(copy, mutant, source, timeoutMs);
          const key = keyOf(mutant, source);
          report.results[key] = { ...result, key, seconds: Math.round((Date.now() - from) / 1000) };
          writeReports(report, contracts, equivalents);
          done += 1;
          const eta = Math.round((((Date.now() - started) / done) * (todo.length - done)) / 60_000);
          say(
            `[${done}/${todo.length}, ~${eta} min left] ${mutant.id}: ${result.status}${result.by ? ` by ${result.by}` : ""} (${report.results[key]?.seconds} s)`,
          );
        }
      }),
    );
  } finally {
    for (const copy of copies) rmSync(copy, { recursive: true, force: true });
  }
  writeReports(report, contracts, equivalents);
  const results = selected.map(({ mutant, source }) => judged(mutant, decided(mutant, source) as Result, equivalents));
  process.stdout.write(`\n${summaryOf(results)}\nreport: ${relative(ROOT, REPORT_MD)}\n`);
  const unexplained = results.filter(({ result }) => result.status === "survived");
  for (const { mutant } of unexplained) process.stdout.write(`survived: ${mutant.id}\n`);
  return unexplained.length > 0 ? 1 : 0;
}

/** A result with a survivor that docs/audit/mutation.md lists shown as equivalent. */
function judged(mutant: Mutant, result: Result, equivalents: Map<string, string>): { mutant: Mutant; result: Result } {
  const equivalent = result.status === "survived" && equivalents.has(mutant.id);
  return { mutant, result: equivalent ? { ...result, status: "equivalent" } : result };
}

/** The tests a mutant meets: their hash, and their text (where a killing test's title is looked up). */
function currentTests(): Tests {
  const sources = TEST_GLOBS.flatMap((pattern) => globSync(pattern, { cwd: ROOT }).sort()).map(readAt);
  return { hash: hashOf(sources), text: sources.join("\n") };
}

/** Every mutant of the mutated contracts as they are now, with its contract's source. */
function currentContracts(): Array<{ mutant: Mutant; source: string }> {
  return MUTATED_CONTRACTS.flatMap((file) => {
    const source = readFileSync(join(ROOT, "contracts", file), "utf8");
    return generateMutants(source, file).map((mutant) => ({ mutant, source }));
  });
}

/**
 * Writes the report of every mutant of the contracts as they are (the results of other contract versions are
 * dropped): report.json, what a later run reuses, and report.md, each decided mutant and how.
 */
function writeReports(
  report: Report,
  contracts: Array<{ mutant: Mutant; source: string }>,
  equivalents: Map<string, string>,
): void {
  const current = new Set(contracts.map(({ source }) => hashOf([source])));
  const kept = Object.values(report.results).filter((result) => current.has(partsOfKey(result.key).contract));
  report.results = Object.fromEntries(kept.map((result) => [result.key, result]));
  const tests = currentTests();
  const results = contracts.flatMap(({ mutant, source }) => {
    const result = reusableResult(report, mutant.id, hashOf([source]), tests);
    return result ? [judged(mutant, result, equivalents)] : [];
  });
  mkdirSync(dirname(REPORT_JSON), { recursive: true });
  const lines = kept.map((result) => JSON.stringify(result)).sort();
  writeFileSync(REPORT_JSON, `{"results":[\n${lines.join(",\n")}\n]}\n`);
  writeFileSync(REPORT_MD, renderReport(results, equivalents, contracts.length));
}

/** One mutant: type-checked, built, then the contract tests and the Solidity tests, in the copy; source restored. */
async function runMutant(
  copy: string,
  mutant: Mutant,
  source: string,
  timeoutMs: number,
): Promise<Omit<Result, "key" | "seconds">> {
  const path = join(copy, "contracts", mutant.file);
  const mutated = applyMutant(source, mutant);
  if (typeCheckSolidity({ [`contracts/${mutant.file}`]: mutated }, copy).length > 0) {
    return { id: mutant.id, status: "not compiling" };
  }
  writeFileSync(path, mutated);
  try {
    const outcome = await runSteps(copy, timeoutMs);
    return { id: mutant.id, ...outcome };
  } finally {
    writeFileSync(path, source);
  }
}

/**
 * Builds the contracts in the copy and runs the contract tests (stopping at the first failure), then, only if they
 * pass, builds and runs the Solidity tests: "survived" when every step passes, else the step that failed and its first
 * failing test ("not compiling" for the build). The Solidity tests' persisted failures are cleared first, so that each
 * mutant is judged by the same runs. `only` names the steps to run (all by default).
 */
async function runSteps(copy: string, timeoutMs: number, only?: string[]): Promise<{ status: Status; by?: string }> {
  const steps: Array<{ name: string; command: string[]; failure: Status }> = [
    // The contracts only: the Solidity tests are built by their own step, which most mutants never reach.
    {
      name: "build",
      command: ["node_modules/.bin/hardhat", "compile", "--quiet", "--no-tests"],
      failure: "not compiling",
    },
    {
      name: "contract tests",
      command: ["npm", "run", "--silent", "test:contracts", "--", "--bail"],
      failure: "killed",
    },
    // Hardhat itself, not `npm run test:sol`, whose toolchain check could install into the linked node_modules.
    { name: "Solidity tests", command: ["node_modules/.bin/hardhat", "test", "solidity"], failure: "killed" },
  ];
  rmSync(join(copy, "cache/solidity-tests"), { recursive: true, force: true });
  for (const step of steps.filter(({ name }) => !only || only.includes(name))) {
    const { code, output } = await run(step.command, copy, timeoutMs);
    if (code === "timeout") return { status: "timed out", by: step.name };
    if (code === 0) continue;
    if (step.name === "build") return { status: step.failure };
    const test = firstFailingTest(output);
    return { status: step.failure, by: test ? `${step.name}: ${test}` : step.name };
  }
  return { status: "survived" };
}

/**
 * Runs a command in `cwd`: its exit code, or "timeout" (its process group killed), and the last 64 KB of its output
 * (read only to name the failing test, never printed).
 */
function run(command: string[], cwd: string, timeoutMs: number): Promise<{ code: number | "timeout"; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command[0] as string, command.slice(1), {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString("utf8")).slice(-65_536);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    const timer = setTimeout(() => {
      if (child.pid) process.kill(-child.pid, "SIGKILL");
      resolve({ code: "timeout", output });
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, output });
    });
  });
}

function renderReport(
  results: Array<{ mutant: Mutant; result: Result }>,
  equivalents: Map<string, string>,
  total: number,
): string {
  const rows = results.map(({ mutant, result }) => {
    const note = result.status === "equivalent" ? equivalents.get(mutant.id) : result.by;
    return `| \`${mutant.id.replaceAll("|", "\\|")}\` | ${result.status} | ${note ?? ""} | ${result.seconds} |`;
  });
  return [
    "# Mutation report",
    "",
    "Written by `npm run mutate` (testkit/contracts/mutate/mutate.ts, docs/audit/mutation.md): every mutant of the",
    "contracts as they are that a run has decided, and how. Survivors that mutation.md lists are equivalent.",
    "",
    `${summaryOf(results)}; ${total - results.length} of the ${total} not run yet.`,
    "",
    "| mutant | outcome | by / why | seconds |",
    "|---|---|---|---:|",
    ...rows,
    "",
  ].join("\n");
}

function summaryOf(results: Array<{ result: Result }>): string {
  const count = (status: Status) => results.filter(({ result }) => result.status === status).length;
  return (
    `${results.length} mutants: ${count("killed")} killed, ${count("survived")} survived, ` +
    `${count("equivalent")} equivalent, ${count("not compiling")} not compiling, ${count("timed out")} timed out`
  );
}

/** The results kept in `file` (one JSON object a line, in a `results` array), none when it is missing or unreadable. */
function readReport(file: string): Report {
  try {
    const { results } = JSON.parse(readFileSync(file, "utf8")) as { results: Result[] };
    return { results: Object.fromEntries(results.map((result) => [result.key, result])) };
  } catch {
    return { results: {} };
  }
}

function readAt(path: string): string {
  return readFileSync(join(ROOT, path), "utf8");
}

function hashOf(parts: string[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part).update("\0");
  return hash.digest("hex").slice(0, 16);
}

function say(line: string): void {
  process.stdout.write(`[mutate] ${line}\n`);
}
