import { execFileSync } from "node:child_process";
import type { StackRun } from "../stackRun.ts";

/**
 * Compiles the contracts with Hardhat (solc from the npm package), so the deployment and ABIs match the sources; the
 * Solidity tests (test/solidity) are left to `npm run test:sol`, which compiles them itself (a fresh checkout's first
 * start saves their 17 s).
 * @example await compileContracts(run)
 */
export async function compileContracts(run: StackRun): Promise<void> {
  run.say("compiling contracts");
  execFileSync(run.bin("hardhat"), ["compile", "--quiet", "--no-tests"], {
    cwd: run.root,
    stdio: ["ignore", "ignore", "inherit"],
  });
}
