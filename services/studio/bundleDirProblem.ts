import { accessSync, constants, readdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Why `--dry-run` cannot write its bundle into `dir` (undefined when it can): a file stands there or on the way to
 * it, the folder already holds files (the bundle's would overwrite those of the same names, another bundle's or
 * anyone's), or the folder that would hold it cannot be written. Checked before any work, so that a run does not
 * specify and verify only to fail at the end.
 * @example const problem = bundleDirProblem("studio-bundles/digest")
 */
export function bundleDirProblem(dir: string): string | undefined {
  let existing = dir;
  for (;;) {
    try {
      const stat = statSync(existing);
      if (!stat.isDirectory())
        return existing === dir ? `${dir} is a file, not a folder` : `${existing} is a file, so ${dir} cannot be made`;
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR")
        return `cannot read ${existing} (${code ?? (error as Error).message})`;
      if (dirname(existing) === existing) return `cannot read ${existing} (ENOENT)`;
      existing = dirname(existing);
    }
  }
  if (existing === dir && readdirSync(dir).length > 0)
    return `${dir} is not empty: the bundle would overwrite its files; name a new or empty folder`;
  try {
    accessSync(existing, constants.W_OK);
  } catch {
    return `${existing} cannot be written to (permission denied)`;
  }
  return undefined;
}
