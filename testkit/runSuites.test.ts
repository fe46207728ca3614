import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { getPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";

const runSuites = new URL("./runSuites.ts", import.meta.url).pathname;

describe("runSuites", function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "run-suites-"));
    const niceness = `node -e "console.log('niceness', require('node:os').getPriority())"`;
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({
        name: "lanes",
        private: true,
        scripts: {
          plain: niceness,
          batch: niceness,
          broken: "exit 3",
          failing: `node -e "console.log('setup');console.log('  1 failing');console.log('  1) the cause');process.exit(1)"`,
          chatty: `node -e "for (let i = 0; i < 400; i++) console.log('line', i)"`,
        },
      }),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const run = (...args: string[]) => spawnSync(process.execPath, [runSuites, ...args], { cwd: dir, encoding: "utf8" });

  it("runs every script of a --batch lane nicer than the other lanes, each lane's scripts in turn", function () {
    const { status, stdout } = run("plain", "--batch", "batch,plain");
    expect(status, stdout).to.equal(0);
    const seen = [...stdout.matchAll(/niceness (-?\d+)/g)].map((m) => Number(m[1]));
    const niced = Math.min(19, getPriority() + 10);
    expect(seen.sort((a, b) => a - b)).to.deep.equal([getPriority(), niced, niced]);
    expect(stdout).to.match(/batch: started \(nice -n 10\)/);
    expect(stdout).to.match(/done: plain passed \(\d+ s\), batch passed \(\d+ s\), plain passed \(\d+ s\)/);
  });

  it("runs on after a failed script and exits 1, naming it", function () {
    const { status, stdout } = run("broken,plain");
    expect(status).to.equal(1);
    expect(stdout).to.match(/done: broken FAILED \(\d+ s\), plain passed/);
  });

  it("repeats a failed script's failures after every other script's output, where a log's reader starts", function () {
    const { status, stdout } = run("failing", "chatty");
    expect(status).to.equal(1);
    const recap = stdout.slice(stdout.lastIndexOf("failing FAILED; the end of its output once more:"));
    expect(stdout.lastIndexOf("line 399")).to.be.lessThan(stdout.length - recap.length);
    expect(recap).to.match(/once more:\n\n {2}1 failing\n {2}1\) the cause\n\n\[suites +\d+ s\] done: failing FAILED/);
    expect(recap).not.to.include("setup");
  });

  it("refuses a command line without a lane after --batch, with its usage", function () {
    for (const args of [[], ["plain", "--batch"], ["plain", ","]]) {
      const { status, stderr } = run(...args);
      expect(status, args.join(" ")).to.equal(2);
      expect(stderr).to.match(/^usage: node testkit\/runSuites.ts \[--batch\]/);
    }
  });
});
