import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { sleep } from "../../../../testkit/sleep.ts";
import { FileLockTimeoutError, withFileLock } from "./withFileLock.ts";

describe("withFileLock: one holder at a time across the processes of a user", function () {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "file-lock-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("runs concurrent work one at a time, holds the lock file meanwhile and removes it after", async function () {
    const lock = join(dir, "ledger.lock");
    let inside = 0;
    let most = 0;
    const work = async () => {
      expect(existsSync(lock)).to.equal(true);
      most = Math.max(most, ++inside);
      await sleep(5);
      inside--;
    };
    await Promise.all(Array.from({ length: 8 }, () => withFileLock(lock, work)));
    expect(most).to.equal(1);
    expect(existsSync(lock)).to.equal(false);
  });

  it("releases the lock when the work throws", async function () {
    const lock = join(dir, "ledger.lock");
    const failed = await withFileLock(lock, () => {
      throw new Error("refused");
    }).catch((error: Error) => error.message);
    expect(failed).to.equal("refused");
    expect(await withFileLock(lock, () => "next")).to.equal("next");
  });

  it("breaks a lock left by a process that has exited", async function () {
    const lock = join(dir, "ledger.lock");
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
    writeFileSync(lock, JSON.stringify({ pid: Number(dead), host: hostname(), token: "gone" }));
    expect(await withFileLock(lock, () => "taken", { timeoutMs: 2_000 })).to.equal("taken");
  });

  it("waits for a live holder, then gives up with an error naming it and how to fix it", async function () {
    const lock = join(dir, "ledger.lock");
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, host: hostname(), token: "live" }));
    const error = await withFileLock(lock, () => "never", { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(FileLockTimeoutError);
    expect((error as FileLockTimeoutError).code).to.equal("lock_timeout");
    expect((error as Error).message)
      .to.include(`process ${process.ppid}`)
      .and.to.include(`delete ${lock}`);
  });
});
