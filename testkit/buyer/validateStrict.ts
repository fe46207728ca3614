import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";

const claude = new URL("../../node_modules/.bin/claude", import.meta.url).pathname;

/**
 * Runs `claude plugin validate --strict` (the workspace's Claude Code, offline) on a generated marketplace and on each
 * of its plugin folders, and returns the folders it refused with its report.
 * @example expect(validateStrict(out)).to.deep.equal([])
 */
export function validateStrict(out: string): { target: string; report: unknown }[] {
  const targets = [out, ...readdirSync(join(out, "plugins")).map((name) => join(out, "plugins", name))];
  return targets.flatMap((target) => {
    const run = spawnSync(claude, ["plugin", "validate", "--strict", "--json", target], { encoding: "utf8" });
    const report = JSON.parse(run.stdout || "null");
    return run.status === 0 && report?.success === true ? [] : [{ target, report: report ?? run.stderr }];
  });
}
