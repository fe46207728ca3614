import { readdirSync, readFileSync } from "node:fs";

/** The fields of /proc/<pid>/stat after the command's name (whose parentheses may hold spaces). */
function statFields(path: string): string[] {
  const stat = readFileSync(path, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * The niceness of each thread of `pid` (field 19 of /proc/<pid>/task/<tid>/stat; Linux keeps one per thread).
 * @example expect(new Set(threadNiceness(pid))).to.deep.equal(new Set([10]))
 */
export function threadNiceness(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => Number(statFields(`/proc/${pid}/task/${tid}/stat`)[16]));
}

/**
 * Every process of process group `pgid` that is still running: its pid, command line (arguments joined by spaces)
 * and niceness.
 * @example groupProcesses(stack.child.pid).find((p) => p.command.includes("services/host/main.ts"))
 */
export function groupProcesses(pgid: number): { pid: number; command: string; niceness: number }[] {
  const found: { pid: number; command: string; niceness: number }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(`/proc/${entry}/stat`);
      if (Number(fields[2]) !== pgid) continue;
      const command = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
      found.push({ pid: Number(entry), command, niceness: Number(fields[16]) });
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found;
}
