import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { decryptKeystore } from "./decryptKeystore.ts";

const root = new URL("../..", import.meta.url).pathname;

/** `npm run keystore -- <args>` with `stdin` on its standard input. */
function keystore(args: string[], stdin = ""): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ["services/keys/cli.ts", ...args],
      { cwd: root },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}

describe("npm run keystore", function () {
  this.timeout(120_000);
  let dir: string;
  let passwordFile: string;

  before(function () {
    dir = mkdtempSync(join(tmpdir(), "keystore-cli-"));
    passwordFile = join(dir, "password");
    writeFileSync(passwordFile, "operator pass phrase\n");
  });
  after(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  it("encrypts a key read from standard input into a keystore only its owner can read, printing the address alone", async function () {
    const key = generatePrivateKey();
    const out = join(dir, "imported.json");
    const run = await keystore(["--out", out, "--password-file", passwordFile, "--import"], `${key}\n`);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.equal(`${privateKeyToAddress(key)} ${out}\n`);
    expect(statSync(out).mode & 0o777).to.equal(0o600);
    expect(decryptKeystore(readFileSync(out, "utf8"), "operator pass phrase")).to.equal(key);
  });

  it("never overwrites an existing file", async function () {
    const out = join(dir, "kept.json");
    writeFileSync(out, "precious");
    const run = await keystore(["--out", out, "--password-file", passwordFile]);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.equal(`keystore: cannot write ${out} (it exists; a keystore is never overwritten)\n`);
    expect(readFileSync(out, "utf8")).to.equal("precious");
  });

  it("refuses an empty password and a malformed key", async function () {
    const empty = join(dir, "empty");
    writeFileSync(empty, "\n");
    const noPassword = await keystore(["--out", join(dir, "a.json"), "--password-file", empty]);
    expect(noPassword.stderr).to.equal(`keystore: the password file ${empty} is empty\n`);
    const badKey = await keystore(["--out", join(dir, "b.json"), "--password-file", passwordFile, "--import"], "0x12");
    expect(badKey.stderr).to.equal("keystore: standard input is not a private key (0x followed by 64 hex digits)\n");
    expect([noPassword.code, badKey.code]).to.deep.equal([1, 1]);
  });
});
