import { readdirSync } from "node:fs";
import { readProcessStat } from "./readProcessStat.ts";

/**
 * The pids of a process and of every process below it (children, their children, …), read from /proc; empty when
 * the process is gone.
 * @example const pids = readProcessTree(host.pid) // the host and its workerd shards
 */
export function readProcessTree(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProcessStat(Number(entry));
    if (stat) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat.pid]);
  }
  if (!readProcessStat(rootPid)) return [];
  const tree = [rootPid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] as number) ?? []));
  return tree;
}
