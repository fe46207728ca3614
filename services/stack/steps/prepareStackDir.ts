import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { StackRun } from "../stackRun.ts";

/**
 * Makes `STACK_DIR`'s log and data folders; the embedded stack starts from empty data (its chain is new each time).
 * @example await prepareStackDir(run)
 */
export async function prepareStackDir(run: StackRun): Promise<void> {
  mkdirSync(join(run.stackDir, "logs"), { recursive: true });
  if (!run.external) rmSync(run.dataDir, { recursive: true, force: true });
  mkdirSync(run.dataDir, { recursive: true });
}
