import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { writeKeystore, writePasswordFile } from "../../../../testkit/keys/writeKeystore.ts";
import { loadBuyerConfig } from "./loadBuyerConfig.ts";

describe("loadBuyerConfig's key", function () {
  let dir: string;
  const key = generatePrivateKey();
  before(function () {
    dir = mkdtempSync(join(tmpdir(), "buyer-key-"));
    writeKeystore(join(dir, "buyer.json"), key, "buyer pw");
    writePasswordFile(join(dir, "password"), "buyer pw");
  });
  after(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  it("opens BUYER_PRIVATE_KEY_FILE with BUYER_PRIVATE_KEY_PASSWORD_FILE: live mode, the key's account", function () {
    const config = loadBuyerConfig({
      BUYER_PRIVATE_KEY_FILE: join(dir, "buyer.json"),
      BUYER_PRIVATE_KEY_PASSWORD_FILE: join(dir, "password"),
    });
    expect(config.mode).to.equal("live");
    expect(config.account?.address).to.equal(privateKeyToAddress(key));
    expect(config.problems.BUYER_PRIVATE_KEY).to.equal(undefined);
  });

  it("a keystore it cannot open is a problem naming the setting, in live mode (never the demo)", function () {
    const config = loadBuyerConfig({
      BUYER_PRIVATE_KEY_FILE: join(dir, "buyer.json"),
      BUYER_PRIVATE_KEY_PASSWORD_FILE: join(dir, "buyer.json"),
    });
    expect(config.mode).to.equal("live");
    expect(config.account).to.equal(undefined);
    expect(config.problems.BUYER_PRIVATE_KEY).to.equal(
      `BUYER_PRIVATE_KEY_FILE: ${join(dir, "buyer.json")}: wrong password (the keystore's MAC does not match); check BUYER_PRIVATE_KEY_PASSWORD_FILE`,
    );
  });
});
