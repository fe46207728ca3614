import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

let ticksPerSecond: number | undefined;
function clockTicks(): number {
  ticksPerSecond ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  return ticksPerSecond;
}

/** What /proc/<pid>/stat says of a process: its parent and the CPU seconds (user + system) it has used so far. */
export type ProcessStat = { pid: number; ppid: number; cpuSeconds: number };

/**
 * Reads /proc/<pid>/stat; undefined when the process is gone (or the system has no /proc).
 * @example const stat = readProcessStat(workerd.pid) // { pid, ppid, cpuSeconds: 0.42 }
 */
export function readProcessStat(pid: number): ProcessStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: the fields after it start past the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 4, 14 and 15 of proc(5): ppid, utime, stime (here shifted by the two fields cut off).
  return { pid, ppid: Number(fields[1]), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / clockTicks() };
}

/**
 * CPU seconds (user + system) one process has used so far, from /proc/<pid>/stat.
 * @throws when the process is gone.
 * @example const cpu = processCpuSeconds(indexer.pid)
 */
export function processCpuSeconds(pid: number): number {
  const stat = readProcessStat(pid);
  if (!stat) throw new Error(`process ${pid} is gone`);
  return stat.cpuSeconds;
}
