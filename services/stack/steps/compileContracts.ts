import { spawnSync } from "node:child_process";
import type { StackRun } from "../stackRun.ts";

/**
 * What Hardhat says when another build in the same checkout (a second stack, `npm run test:sol` beside a test's
 * stack) renamed away the one temporary file it writes its compile cache through: the build itself is done, and
 * running it again finds everything compiled.
 */
const CACHE_RACE = /compile-cache\.json\.tmp/;
const ATTEMPTS = 3;

/**
 * Compiles the contracts with Hardhat (solc from the npm package), so the deployment and ABIs match the sources; the
 * Solidity tests (test/solidity) are left to `npm run test:sol`, which compiles them itself (a fresh checkout's first
 * start saves their 17 s). A build that lost the race for Hardhat's cache file to another is run again; any other
 * failure throws an error that carries Hardhat's output.
 * @example await compileContracts(run)
 */
export async function compileContracts(run: StackRun): Promise<void> {
  run.say("compiling contracts");
  for (let attempt = 1; ; attempt++) {
    const build = spawnSync(run.bin("hardhat"), ["compile", "--quiet", "--no-tests"], {
      cwd: run.root,
      stdio: ["ignore", "ignore", "pipe"],
      encoding: "utf8",
    });
    if (build.status === 0) return;
    if (attempt < ATTEMPTS && CACHE_RACE.test(build.stderr ?? "")) continue;
    const said = (build.stderr ?? "").trim();
    throw new Error(
      `hardhat compile failed (exit ${build.status ?? build.signal ?? build.error?.message})${said ? `:\n${said}` : ""}`,
    );
  }
}
