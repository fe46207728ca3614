import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * Writes rendered files under `outDir`. With `prune`, the `plugins/` folder is removed first so plugins that are
 * no longer generated disappear; without it, other files under `outDir` are left as they are.
 * @example writePluginTree("/tmp/out", renderPlugins(parameters), { prune: true })
 */
export function writePluginTree(outDir: string, files: ReadonlyMap<string, string>, { prune = false } = {}): void {
  if (prune) rmSync(join(outDir, "plugins"), { recursive: true, force: true });
  for (const [path, text] of files) {
    const file = join(outDir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
}
