import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { generatePrivateKey } from "viem/accounts";
import { writeKeystore, writePasswordFile } from "../../testkit/keys/writeKeystore.ts";
import { TEST_NETWORK } from "../protocol/constants.ts";
import { loadStackConfig, STACK_KEY_SETTINGS } from "./loadStackConfig.ts";

const IDENTITY = "0x8004A818BFB912233c491871b3d84c89A494BD9e";

describe("loadStackConfig's NETWORK", function () {
  it("NETWORK=arc-testnet fills in the network's RPC endpoint and USDC, and so external mode", function () {
    const config = loadStackConfig({ NETWORK: "arc-testnet", IDENTITY_ADDRESS: IDENTITY });
    expect(config.RPC_URL).to.equal("https://rpc.testnet.arc.network");
    expect(config.TOKEN_ADDRESS).to.equal("0x3600000000000000000000000000000000000000");
    expect(TEST_NETWORK.chainId).to.equal(5042002);
    expect(config.IDENTITY_ADDRESS, "stays explicit").to.equal(IDENTITY);
  });

  it("an RPC_URL given beside it names another endpoint of the same network", function () {
    const config = loadStackConfig({
      NETWORK: "arc-testnet",
      RPC_URL: "http://127.0.0.1:9545",
      IDENTITY_ADDRESS: IDENTITY,
    });
    expect(config.RPC_URL).to.equal("http://127.0.0.1:9545");
    expect(config.TOKEN_ADDRESS).to.equal(TEST_NETWORK.usdc);
  });

  it("refuses a TOKEN_ADDRESS that is not the network's USDC, and a missing IDENTITY_ADDRESS, naming both", function () {
    expect(() =>
      loadStackConfig({ NETWORK: "arc-testnet", TOKEN_ADDRESS: "0x1111111111111111111111111111111111111111" }),
    ).to.throw(
      /TOKEN_ADDRESS: 0x1111111111111111111111111111111111111111 is not arc-testnet's USDC \(0x3600000000000000000000000000000000000000\).*IDENTITY_ADDRESS: NETWORK=arc-testnet needs/,
    );
  });

  it("accepts the network's USDC given again, in any case", function () {
    const config = loadStackConfig({
      NETWORK: "arc-testnet",
      TOKEN_ADDRESS: TEST_NETWORK.usdc,
      IDENTITY_ADDRESS: IDENTITY.toLowerCase(),
    });
    expect(config.TOKEN_ADDRESS).to.equal(TEST_NETWORK.usdc);
  });

  it("refuses a network it does not know", function () {
    expect(() => loadStackConfig({ NETWORK: "mainnet" })).to.throw(/invalid settings: NETWORK: /);
  });

  it("without NETWORK, nothing is filled in (the embedded chain)", function () {
    const config = loadStackConfig({});
    expect(config.RPC_URL).to.equal(undefined);
    expect(config.TOKEN_ADDRESS).to.equal(undefined);
  });
});

describe("loadStackConfig's folders", function () {
  it("a local start refuses DEPLOYMENT_DIR, which it would empty: an operator's real record is not lost", function () {
    expect(() => loadStackConfig({ DEPLOYMENT_DIR: "/var/lib/service/deployment" })).to.throw(
      /invalid settings: DEPLOYMENT_DIR: .*unset DEPLOYMENT_DIR, or set RPC_URL or NETWORK/,
    );
  });

  it("external mode takes DEPLOYMENT_DIR", function () {
    const config = loadStackConfig({ RPC_URL: "http://127.0.0.1:9545", DEPLOYMENT_DIR: "/var/lib/service/deployment" });
    expect(config.DEPLOYMENT_DIR).to.equal("/var/lib/service/deployment");
  });

  it("refuses an empty STACK_DIR, which would be the checkout itself", function () {
    expect(() => loadStackConfig({ STACK_DIR: "" })).to.throw(/invalid settings: STACK_DIR: /);
  });
});

describe("loadStackConfig's keys", function () {
  let dir: string;
  before(function () {
    dir = mkdtempSync(join(tmpdir(), "stack-keys-"));
  });
  after(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads every key setting from a keystore file: the relayer pool from a directory, the others from one file each", function () {
    const passwordFile = writePasswordFile(join(dir, "password"), "pw");
    mkdirSync(join(dir, "relayers"));
    const pool = [generatePrivateKey(), generatePrivateKey()];
    for (const [i, key] of pool.entries()) writeKeystore(join(dir, "relayers", `relayer-${i}.json`), key, "pw");
    const env: Record<string, string> = {
      RELAYER_KEYS_FILE: join(dir, "relayers"),
      RELAYER_KEYS_PASSWORD_FILE: passwordFile,
    };
    const single = ["DEPLOYER_KEY", "FACILITATOR_KEY", "PUBLISHER_KEY", "STUDIO_BUYER_KEY"] as const;
    const keys = Object.fromEntries(single.map((name) => [name, generatePrivateKey()]));
    for (const name of single) {
      env[`${name}_FILE`] = writeKeystore(join(dir, `${name}.json`), keys[name]!, "pw");
      env[`${name}_PASSWORD_FILE`] = passwordFile;
    }
    expect(Object.keys(STACK_KEY_SETTINGS).sort()).to.deep.equal([...single, "RELAYER_KEYS"].sort());
    const config = loadStackConfig(env);
    expect(config.RELAYER_KEYS).to.equal(pool.join(","));
    for (const name of single) expect(config[name], name).to.equal(keys[name]);
  });

  it("refuses a keystore it cannot open, naming the setting, without a second complaint about the key", function () {
    expect(() =>
      loadStackConfig({ DEPLOYER_KEY_FILE: join(dir, "absent.json"), DEPLOYER_KEY_PASSWORD_FILE: join(dir, "x") }),
    ).to.throw(`invalid settings: DEPLOYER_KEY_FILE: cannot read ${join(dir, "absent.json")} (no such file)`);
  });
});

describe("loadStackConfig's HOLD_MAX_SECONDS", function () {
  it("is unset unless given (the embedded stack then sends each debit at once), kept when given, refused when malformed", function () {
    expect(loadStackConfig({}).HOLD_MAX_SECONDS).to.equal(undefined);
    expect(loadStackConfig({ HOLD_MAX_SECONDS: "600" }).HOLD_MAX_SECONDS).to.equal("600");
    expect(() => loadStackConfig({ HOLD_MAX_SECONDS: "ten" })).to.throw(/HOLD_MAX_SECONDS/);
  });
});

describe("loadStackConfig's BACKGROUND_NICENESS", function () {
  it("is 0 unless given, takes 0 to 19, and refuses anything else", function () {
    expect(loadStackConfig({}).BACKGROUND_NICENESS).to.equal(0);
    expect(loadStackConfig({ BACKGROUND_NICENESS: "10" }).BACKGROUND_NICENESS).to.equal(10);
    expect(loadStackConfig({ BACKGROUND_NICENESS: "19" }).BACKGROUND_NICENESS).to.equal(19);
    for (const bad of ["20", "-1", "2.5", "low"])
      expect(() => loadStackConfig({ BACKGROUND_NICENESS: bad }), bad).to.throw(/BACKGROUND_NICENESS/);
  });
});

describe("loadStackConfig's READY_TIMEOUT_SECONDS", function () {
  it("is 180 unless given, takes 1 to 3600, and refuses anything else", function () {
    expect(loadStackConfig({}).READY_TIMEOUT_SECONDS).to.equal(180);
    expect(loadStackConfig({ READY_TIMEOUT_SECONDS: "600" }).READY_TIMEOUT_SECONDS).to.equal(600);
    for (const bad of ["0", "3601", "-5", "1.5", "soon"])
      expect(() => loadStackConfig({ READY_TIMEOUT_SECONDS: bad }), bad).to.throw(/READY_TIMEOUT_SECONDS/);
  });
});
