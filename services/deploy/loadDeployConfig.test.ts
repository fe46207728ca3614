import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { generatePrivateKey } from "viem/accounts";
import { DeployError } from "./deployError.ts";
import { loadDeployConfig } from "./loadDeployConfig.ts";

const root = new URL("../..", import.meta.url).pathname;

/** The message of what `load` throws, which must be a DeployError. */
function problemOf(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    expect(error).to.be.instanceOf(DeployError);
    return (error as DeployError).shortMessage;
  }
  throw new Error("expected a DeployError");
}

describe("loadDeployConfig", function () {
  it("names every problem at once: nothing set for npm run deploy names DEPLOYMENT_DIR, RPC_URL and DEPLOYER_KEY", function () {
    const message = problemOf(() => loadDeployConfig({}, { root, needsKey: true }));
    expect(message).to.match(/^invalid settings: /);
    expect(message).to.match(/DEPLOYMENT_DIR: required/);
    expect(message).to.match(/RPC_URL: required/);
    expect(message).to.match(/DEPLOYER_KEY: required/);
    expect(message).to.not.include("expected string, received undefined");
  });

  it("check-deployment, which needs no key, names DEPLOYMENT_DIR and RPC_URL only", function () {
    const message = problemOf(() => loadDeployConfig({}, { root, needsKey: false }));
    expect(message).to.match(/DEPLOYMENT_DIR: required/);
    expect(message).to.match(/RPC_URL: required/);
    expect(message).to.not.include("DEPLOYER_KEY");
  });

  it("a malformed key and a record inside the checkout are named beside a schema problem", function () {
    const bad = problemOf(() =>
      loadDeployConfig({ RPC_URL: "not a url", DEPLOYER_KEY: "0x1234" }, { root, needsKey: true }),
    );
    expect(bad).to.match(/RPC_URL: /);
    expect(bad).to.match(/DEPLOYER_KEY: must be 0x followed by 64 hex digits/);
    expect(bad).to.match(/DEPLOYMENT_DIR: required/);
    const inside = problemOf(() =>
      loadDeployConfig({ DEPLOYMENT_DIR: join(root, "record"), LOG_RANGE_BLOCKS: "0" }, { root, needsKey: true }),
    );
    expect(inside).to.match(/LOG_RANGE_BLOCKS: /);
    expect(inside).to.match(/DEPLOYMENT_DIR: .* is inside the checkout/);
    expect(inside).to.match(/RPC_URL: required/);
  });

  it("takes complete settings, with the record's directory made absolute", function () {
    const key = generatePrivateKey();
    const dir = join(tmpdir(), "deploy-record");
    const config = loadDeployConfig(
      { RPC_URL: "http://127.0.0.1:8545", DEPLOYER_KEY: key, DEPLOYMENT_DIR: dir },
      { root, needsKey: true },
    );
    expect(config).to.include({ RPC_URL: "http://127.0.0.1:8545", DEPLOYER_KEY: key, DEPLOYMENT_DIR: dir });
  });
});
