import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** The parts of `npm start` told apart by their command line, in the order reports list them. */
export const STACK_PARTS = [
  "chain",
  "indexer",
  "facilitator",
  "host",
  "workerd",
  "marketplace",
  "studio",
  "orchestrator",
] as const;

/** A part of the stack, or `other` for a process none of them explains. */
export type StackPart = (typeof STACK_PARTS)[number] | "other";

/** CPU seconds (user + system) per part of the stack, summed over its processes. */
export type StackCpu = Record<StackPart, number>;

const PATTERNS: [StackPart, RegExp][] = [
  ["chain", /hardhat.* node( |$)/],
  ["indexer", /ponder/],
  ["facilitator", /facilitator\/main\.ts/],
  ["host", /host\/main\.ts/],
  ["workerd", /workerd/],
  ["marketplace", /marketplace\/main\.ts/],
  ["studio", /studio\/main\.ts/],
  ["orchestrator", /stack\/start\.ts/],
];

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  return ticksPerSecond;
}

type Proc = { pid: number; ppid: number; cpu: number; command: string };

function readProc(pid: number): Proc | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: the fields after it start past the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
    // Fields 4, 14 and 15 of proc(5): ppid, utime, stime (here shifted by the two fields cut off).
    return { pid, ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / clockTicks(), command };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds (user + system) one process has used so far, from /proc/<pid>/stat.
 * @throws when the process is gone.
 * @example const cpu = processCpuSeconds(indexer.pid)
 */
export function processCpuSeconds(pid: number): number {
  const proc = readProc(pid);
  if (!proc) throw new Error(`process ${pid} is gone`);
  return proc.cpu;
}

/** One reading: CPU seconds so far of every process of the stack, by pid, with the part each belongs to. */
export type StackCpuReading = Map<number, { part: StackPart; cpu: number }>;

/**
 * Reads the CPU time of every process under `rootPid` (itself included) from /proc; a process whose command line
 * names no part belongs to its nearest ancestor that does.
 * @example const before = readStackCpu(pid); ...; const used = cpuSince(before, readStackCpu(pid))
 */
export function readStackCpu(rootPid: number): StackCpuReading {
  const all = new Map<number, Proc>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const proc = readProc(Number(entry));
    if (proc) all.set(proc.pid, proc);
  }
  const reading: StackCpuReading = new Map();
  for (const proc of all.values()) {
    let part: StackPart | undefined;
    for (let at: Proc | undefined = proc; at; at = all.get(at.ppid)) {
      part ??= PATTERNS.find(([, pattern]) => pattern.test(at.command))?.[0];
      if (at.pid === rootPid) {
        reading.set(proc.pid, { part: part ?? "other", cpu: proc.cpu });
        break;
      }
      if (at.ppid === at.pid) break;
    }
  }
  return reading;
}

/** CPU seconds used per part between two readings (a process that exited in between is not counted). */
export function cpuSince(before: StackCpuReading, after: StackCpuReading): StackCpu {
  const used = Object.fromEntries([...STACK_PARTS, "other"].map((part) => [part, 0])) as StackCpu;
  for (const [pid, { part, cpu }] of after) used[part] += cpu - (before.get(pid)?.cpu ?? 0);
  return used;
}
