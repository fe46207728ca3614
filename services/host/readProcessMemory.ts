import { readFileSync } from "node:fs";

/**
 * What a process holds in memory, from /proc/<pid>/smaps_rollup: resident bytes (shared pages counted in full) and
 * proportional bytes (each shared page split among the processes that map it, so that the PSS of several processes
 * adds up to what they hold together).
 */
export type ProcessMemory = { rssBytes: number; pssBytes: number };

/**
 * Reads a process's resident and proportional memory; undefined when the process is gone or not readable.
 * @example const { rssBytes, pssBytes } = readProcessMemory(pid)!
 */
export function readProcessMemory(pid: number): ProcessMemory | undefined {
  let rollup: string;
  try {
    rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  } catch {
    return undefined;
  }
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(rollup)?.[1] ?? 0) * 1024;
  return { rssBytes: kb("Rss"), pssBytes: kb("Pss") };
}
