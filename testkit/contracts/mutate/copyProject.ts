import { cpSync, mkdtempSync, realpathSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";

/** What a copy of the project leaves out: dependencies (linked instead), build output, caches, local state. */
const LEFT_OUT = new Set([
  "node_modules",
  ".git",
  "artifacts",
  "cache",
  "coverage",
  "types",
  "generated",
  ".stack",
  ".data",
  ".ponder",
  join("ignition", "deployments"),
]);

/**
 * A copy of the project at `root` in a new temporary directory, its node_modules a link to `root`'s, so that
 * contracts can be changed, built and tested there without touching the checkout.
 * @example const copy = copyProject(root) // …/mutate-XXXX
 */
export function copyProject(root: string): string {
  const dir = mkdtempSync(join(tmpdir(), "mutate-"));
  cpSync(root, dir, {
    recursive: true,
    filter: (source) => {
      const path = relative(root, source);
      return !LEFT_OUT.has(path) && !path.split(sep).includes("node_modules");
    },
  });
  symlinkSync(realpathSync(join(root, "node_modules")), join(dir, "node_modules"));
  return dir;
}
