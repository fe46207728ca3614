import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { HostConfigError } from "./loadHostConfig.ts";
import { readSealKey, SEAL_KEY_FILE } from "./readSealKey.ts";

describe("readSealKey", function () {
  let dir: string;

  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), "seal-key-"));
  });

  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it("uses HOST_SEAL_SECRET when set, and writes no file", async function () {
    const secret = "s".repeat(40);
    expect(readSealKey({ secret, dataDir: dir }).equals(Buffer.from(secret))).to.equal(true);
    expect(await stat(join(dir, SEAL_KEY_FILE)).catch(() => undefined)).to.equal(undefined);
  });

  it("otherwise creates a random key, readable by its owner only, and reads the same one on the next start", async function () {
    const first = readSealKey({ dataDir: dir });
    expect(first.length).to.equal(32);
    expect((await stat(join(dir, SEAL_KEY_FILE))).mode & 0o777).to.equal(0o600);
    expect(readSealKey({ dataDir: dir }).equals(first)).to.equal(true);
    const other = await mkdtemp(join(tmpdir(), "seal-key-"));
    try {
      expect(readSealKey({ dataDir: other }).equals(first), "another directory, another key").to.equal(false);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it("refuses a key file that holds something else", async function () {
    await writeFile(join(dir, SEAL_KEY_FILE), "not a key");
    expect(() => readSealKey({ dataDir: dir })).to.throw(HostConfigError, /seal key/);
  });
});
