import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { StackRun } from "../stackRun.ts";
import { compileContracts } from "./compileContracts.ts";

/**
 * The step with a stand-in for Hardhat in the run's `node_modules/.bin`: a script that counts its runs and fails the
 * first `failures` of them with `message` on stderr, as Hardhat does.
 */
function standIn(failures: number, message: string) {
  const root = mkdtempSync(join(tmpdir(), "compile-step-"));
  const runs = join(root, "runs");
  const script = join(root, "hardhat");
  writeFileSync(
    script,
    `#!/bin/sh\necho x >> '${runs}'\n[ "$(wc -l < '${runs}')" -gt ${failures} ] && exit 0\necho '${message}' >&2\nexit 1\n`,
  );
  chmodSync(script, 0o755);
  const said: string[] = [];
  const run = { root, bin: () => script, say: (line: string) => said.push(line) } as unknown as StackRun;
  return {
    run,
    runs: () => (existsSync(runs) ? readFileSync(runs, "utf8").trim().split("\n").length : 0),
    close: () => rmSync(root, { recursive: true, force: true }),
  };
}

const RACE =
  "FileNotFoundError: File /repo/cache/compile-cache.json.tmp not found (ENOENT: rename compile-cache.json.tmp -> compile-cache.json)";

describe("compileContracts (the stack's build step)", function () {
  it("builds again when another build in the checkout took Hardhat's cache file from under it", async function () {
    const hardhat = standIn(1, RACE);
    try {
      await compileContracts(hardhat.run);
      expect(hardhat.runs()).to.equal(2);
    } finally {
      hardhat.close();
    }
  });

  it("stops after three lost races, and throws", async function () {
    const hardhat = standIn(5, RACE);
    try {
      const error = await compileContracts(hardhat.run).catch((e: Error) => e);
      expect(error)
        .to.be.instanceOf(Error)
        .with.property("message")
        .match(/hardhat compile failed \(exit 1\)/);
      expect(hardhat.runs()).to.equal(3);
    } finally {
      hardhat.close();
    }
  });

  it("does not build again after any other failure", async function () {
    const hardhat = standIn(5, "Error HHE902: ParserError: Expected a semicolon");
    try {
      const error = await compileContracts(hardhat.run).catch((e: Error) => e);
      expect(error)
        .to.be.instanceOf(Error)
        .with.property("message")
        .match(/hardhat compile failed \(exit 1\):\nError HHE902: ParserError: Expected a semicolon$/);
      expect(hardhat.runs()).to.equal(1);
    } finally {
      hardhat.close();
    }
  });
});
