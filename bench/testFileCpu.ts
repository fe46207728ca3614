/**
 * A mocha root-hook plugin that writes, for each test file, the CPU it took with every process it started (servers,
 * CLIs, whole stacks): `--require bench/testFileCpu.ts` on a mocha suite, with `TEST_CPU_LOG` naming the file to
 * append a line per test file to (CPU-seconds, wall seconds, file). Each file's worker moves itself into a cpuacct
 * cgroup of its own for the file, so what its children spend counts too, however they end; it needs cgroup v1's
 * cpuacct controller writable (root), and does nothing without it. docs/benchmarks.md, "Test suites".
 * @example TEST_CPU_LOG=/tmp/cpu.tsv npm run test:services -- --require bench/testFileCpu.ts; sort -rn /tmp/cpu.tsv
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import type { Context } from "mocha";

const CPUACCT = "/sys/fs/cgroup/cpuacct";
const log = process.env.TEST_CPU_LOG;
const root = new URL("..", import.meta.url).pathname;
let files = 0;
let group: string | undefined;
let startedAt = 0;

/** Moves this process into `dir`'s cgroup (its own children follow it from then on). */
const join = (dir: string) => writeFileSync(`${dir}/cgroup.procs`, String(process.pid));

export const mochaHooks = {
  beforeAll() {
    if (!log || !existsSync(`${CPUACCT}/cgroup.procs`)) return;
    group = `${CPUACCT}/test-file-cpu-${process.pid}-${files++}`;
    try {
      mkdirSync(group);
      join(group);
    } catch {
      group = undefined;
      return;
    }
    startedAt = performance.now();
  },
  afterAll(this: Context) {
    if (!log || group === undefined) return;
    const file = this.test?.parent?.suites[0]?.file ?? this.test?.parent?.file ?? "?";
    const seconds = Number(readFileSync(`${group}/cpuacct.usage`, "utf8")) / 1e9;
    join(CPUACCT);
    // A group still holding processes the file left running cannot be removed; it is left for the machine.
    try {
      rmdirSync(group);
    } catch {}
    const wall = (performance.now() - startedAt) / 1000;
    appendFileSync(log, `${seconds.toFixed(1)}\t${wall.toFixed(0)}\t${relative(root, file)}\n`);
    group = undefined;
  },
};
