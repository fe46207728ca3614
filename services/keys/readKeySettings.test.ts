import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { generatePrivateKey } from "viem/accounts";
import { writeKeystore, writePasswordFile } from "../../testkit/keys/writeKeystore.ts";
import { readKeySettings } from "./readKeySettings.ts";

describe("readKeySettings", function () {
  this.timeout(60_000);
  let dir: string;
  let passwordFile: string;
  const keys = [generatePrivateKey(), generatePrivateKey(), generatePrivateKey()];
  const password = "correct horse battery";

  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), "keys-"));
    passwordFile = writePasswordFile(join(dir, "password"), password);
  });
  afterEach(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every problem as one string, checked to hold neither a key nor the password. */
  function problemsOf(problems: Record<string, string>): string {
    const text = Object.entries(problems)
      .map(([name, problem]) => `${name}: ${problem}`)
      .join("\n");
    for (const secret of [...keys.map((k) => k.slice(2)), password]) expect(text).not.to.include(secret);
    return text;
  }

  it("passes raw hex through for local use", function () {
    const env = { FACILITATOR_KEY: keys[0], RELAYER_KEYS: `${keys[1]},${keys[2]}` };
    const read = readKeySettings(env, { FACILITATOR_KEY: "one", RELAYER_KEYS: "list" });
    expect(read).to.deep.equal({ env, problems: {} });
  });

  it("opens a keystore named by NAME_FILE with the password in NAME_PASSWORD_FILE, and drops both settings", function () {
    const file = writeKeystore(join(dir, "facilitator.json"), keys[0]!, password);
    const read = readKeySettings(
      { FACILITATOR_KEY_FILE: file, FACILITATOR_KEY_PASSWORD_FILE: passwordFile, PORT: "1" },
      { FACILITATOR_KEY: "one" },
    );
    expect(read).to.deep.equal({ env: { FACILITATOR_KEY: keys[0], PORT: "1" }, problems: {} });
  });

  it("reads a pool from a comma-separated list of keystore files, in the order given", function () {
    const a = writeKeystore(join(dir, "a.json"), keys[0]!, password);
    const b = writeKeystore(join(dir, "b.json"), keys[1]!, password);
    const read = readKeySettings(
      { RELAYER_KEYS_FILE: `${b}, ${a}`, RELAYER_KEYS_PASSWORD_FILE: passwordFile },
      { RELAYER_KEYS: "list" },
    );
    expect(read.env.RELAYER_KEYS).to.equal(`${keys[1]},${keys[0]}`);
  });

  it("reads a pool from a directory: every file in it by name, dotfiles and subdirectories skipped", function () {
    const pool = join(dir, "pool");
    mkdirSync(join(pool, "nested"), { recursive: true });
    writeKeystore(join(pool, "UTC--2"), keys[1]!, password);
    writeKeystore(join(pool, "UTC--1"), keys[0]!, password);
    writeFileSync(join(pool, ".DS_Store"), "not a keystore");
    const read = readKeySettings(
      { RELAYER_KEYS_FILE: pool, RELAYER_KEYS_PASSWORD_FILE: passwordFile },
      { RELAYER_KEYS: "list" },
    );
    expect(read).to.deep.equal({ env: { RELAYER_KEYS: `${keys[0]},${keys[1]}` }, problems: {} });
  });

  it("names the setting and the file when the password is wrong, never the key or the password", function () {
    const file = writeKeystore(join(dir, "relayer.json"), keys[0]!, password);
    const wrong = writePasswordFile(join(dir, "wrong"), "not the password");
    const read = readKeySettings(
      { RELAYER_KEYS_FILE: file, RELAYER_KEYS_PASSWORD_FILE: wrong },
      { RELAYER_KEYS: "list" },
    );
    expect(read.env.RELAYER_KEYS).to.equal(undefined);
    expect(problemsOf(read.problems)).to.equal(
      `RELAYER_KEYS: RELAYER_KEYS_FILE: ${file}: wrong password (the keystore's MAC does not match); check RELAYER_KEYS_PASSWORD_FILE`,
    );
  });

  const refusals: [string, (files: { file: string; passwordFile: string }) => Record<string, string>, RegExp][] = [
    [
      "a keystore file that does not exist",
      ({ passwordFile }) => ({
        PUBLISHER_KEY_FILE: join(dir, "missing.json"),
        PUBLISHER_KEY_PASSWORD_FILE: passwordFile,
      }),
      /^PUBLISHER_KEY_FILE: cannot read .*missing\.json \(no such file\)$/,
    ],
    [
      "a password file that does not exist",
      ({ file }) => ({ PUBLISHER_KEY_FILE: file, PUBLISHER_KEY_PASSWORD_FILE: join(dir, "nope") }),
      /^PUBLISHER_KEY_PASSWORD_FILE: cannot read .*nope \(no such file\)$/,
    ],
    [
      "a keystore without its password file",
      ({ file }) => ({ PUBLISHER_KEY_FILE: file }),
      /^PUBLISHER_KEY_FILE needs PUBLISHER_KEY_PASSWORD_FILE/,
    ],
    [
      "a password file without a keystore",
      ({ passwordFile }) => ({ PUBLISHER_KEY_PASSWORD_FILE: passwordFile }),
      /^PUBLISHER_KEY_PASSWORD_FILE is set without PUBLISHER_KEY_FILE$/,
    ],
    [
      "a key given both ways",
      ({ file, passwordFile }) => ({
        PUBLISHER_KEY: keys[1]!,
        PUBLISHER_KEY_FILE: file,
        PUBLISHER_KEY_PASSWORD_FILE: passwordFile,
      }),
      /^PUBLISHER_KEY and PUBLISHER_KEY_FILE are both set/,
    ],
    [
      "a directory for a single key",
      ({ passwordFile }) => ({ PUBLISHER_KEY_FILE: dir, PUBLISHER_KEY_PASSWORD_FILE: passwordFile }),
      /^PUBLISHER_KEY_FILE: .* is a directory; name one keystore file$/,
    ],
    [
      "a file that is not a keystore",
      ({ passwordFile }) => ({ PUBLISHER_KEY_FILE: passwordFile, PUBLISHER_KEY_PASSWORD_FILE: passwordFile }),
      /^PUBLISHER_KEY_FILE: .*password: not a Web3 Secret Storage v3 keystore: not JSON$/,
    ],
  ];
  for (const [what, env, message] of refusals)
    it(`refuses ${what}, naming the setting`, function () {
      const file = writeKeystore(join(dir, "publisher.json"), keys[0]!, password);
      const read = readKeySettings(env({ file, passwordFile }), { PUBLISHER_KEY: "one" });
      expect(Object.keys(read.problems)).to.deep.equal(["PUBLISHER_KEY"]);
      expect(problemsOf(read.problems).replace(/^PUBLISHER_KEY: /, "")).to.match(message);
    });

  it("refuses an empty directory for a pool", function () {
    const pool = join(dir, "empty");
    mkdirSync(pool);
    const read = readKeySettings(
      { RELAYER_KEYS_FILE: pool, RELAYER_KEYS_PASSWORD_FILE: passwordFile },
      { RELAYER_KEYS: "list" },
    );
    expect(read.problems.RELAYER_KEYS).to.equal(`RELAYER_KEYS_FILE: no keystore file in the directory ${pool}`);
  });
});
