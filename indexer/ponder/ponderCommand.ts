import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

export type PonderCommandOptions = {
  /** Node flags before Ponder's entry point (e.g. `--cpu-prof`). */
  nodeArgs?: readonly string[];
  /** Preload patches.ts (default true); false runs Ponder as installed, for the bench's comparison. */
  patched?: boolean;
};

/**
 * How to run the Ponder CLI with `args`: this Node, this project's patches of Ponder preloaded (patches.ts), then
 * Ponder's own entry point. One place for the stack and the tests, so that both index with the same Ponder.
 * @example const { command, args } = ponderCommand(["--root", "indexer", "start", "--schema", "indexer"])
 */
export function ponderCommand(args: readonly string[], options: PonderCommandOptions = {}) {
  const patches =
    options.patched === false ? [] : ["--import", fileURLToPath(new URL("./patches.ts", import.meta.url))];
  return {
    command: process.execPath,
    args: [...(options.nodeArgs ?? []), ...patches, `${root}node_modules/ponder/dist/esm/bin/ponder.js`, ...args],
  };
}
