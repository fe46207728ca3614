import { expect } from "chai";
import { TEST_NETWORK } from "../protocol/constants.ts";
import { loadStackConfig } from "./loadStackConfig.ts";

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
