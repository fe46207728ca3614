import { execFileSync } from "node:child_process";
import type { StackRun } from "../stackRun.ts";

/**
 * Compiles the contracts with Hardhat (solc from the npm package), so the deployment and ABIs match the sources.
 * @example await compileContracts(run)
 */
export async function compileContracts(run: StackRun): Promise<void> {
  run.say("compiling contracts");
  execFileSync(run.bin("hardhat"), ["compile", "--quiet"], { cwd: run.root, stdio: ["ignore", "ignore", "inherit"] });
}
