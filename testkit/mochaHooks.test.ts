import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";

const ROOT = new URL("..", import.meta.url).pathname;

describe("testkit: mocha root hooks", function () {
  this.timeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), "mocha-hooks-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs mocha in parallel mode over two files, one failing with BigInt values. */
  function runParallel(hooks: string[]) {
    writeFileSync(
      join(dir, "bigint.test.ts"),
      'it("fails with BigInts", () => { throw Object.assign(new Error("rejected"), { data: { amount: 1n } }); });\n',
    );
    writeFileSync(join(dir, "other.test.ts"), 'it("passes", () => {});\n');
    return spawnSync(
      join(ROOT, "node_modules/.bin/mocha"),
      [
        "--parallel",
        "--jobs",
        "2",
        "--reporter",
        "dot",
        ...hooks,
        join(dir, "bigint.test.ts"),
        join(dir, "other.test.ts"),
      ],
      { cwd: ROOT, encoding: "utf8" },
    );
  }

  it("an error that holds a BigInt is reported as one failure instead of aborting the run", function () {
    const run = runParallel(["--require", "testkit/mochaHooks.ts"]);
    const output = run.stdout + run.stderr;
    expect(output).to.match(/1 passing/);
    expect(output).to.match(/1 failing/);
    expect(output).to.include("fails with BigInts");
    expect(output).not.to.include("serialize a BigInt");
  });

  it("without the hooks mocha cannot send that failure (what the hooks are for)", function () {
    const run = runParallel([]);
    expect(run.stdout + run.stderr).to.include("serialize a BigInt");
  });
});
