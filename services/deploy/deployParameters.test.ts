import { expect } from "chai";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { DEFAULTS } from "../../ignition/modules/parts.ts";
import { DEFAULT_MIN_BOND, TEST_NETWORK } from "../protocol/constants.ts";
import { parseDeployParameters } from "./deployParameters.ts";

const address = () => privateKeyToAddress(generatePrivateKey());

describe("parseDeployParameters", function () {
  const deployer = address();
  const roles = {
    admin: address(),
    treasury: address(),
    relayers: [address(), address()],
    facilitator: address(),
    publisher: address(),
    identityAddress: address(),
  };
  const parse = (global: unknown, network?: string) =>
    parseDeployParameters(global, { deployer, network, source: "deploy.json" });

  it("takes the network's USDC and the contracts' defaults when they are not given", function () {
    const parameters = parse(roles, TEST_NETWORK.name);
    expect(parameters.tokenAddress).to.equal(TEST_NETWORK.usdc);
    expect(parameters).to.include({ feeBps: DEFAULTS.feeBps, adminDelay: DEFAULTS.adminDelay });
    expect(parameters.minBond, "what the marketplace asks of a listing, not the embedded chain's none").to.equal(
      DEFAULT_MIN_BOND,
    );
  });

  it("refuses another token on the named network, and needs one without it", function () {
    expect(() => parse({ ...roles, tokenAddress: address() }, TEST_NETWORK.name)).to.throw(
      /\$global\.tokenAddress: 0x[0-9a-fA-F]{40} is not arc-testnet's USDC/,
    );
    expect(() => parse(roles)).to.throw(/\$global\.tokenAddress: required/);
  });

  it("refuses every role left out, naming each, and a misspelt setting", function () {
    const { admin: _a, relayers: _r, ...rest } = roles;
    expect(() => parse({ ...rest, relayer: address() }, TEST_NETWORK.name)).to.throw(
      /\$global\.admin: .*\$global\.relayers: .*(Unrecognized key|unrecognized).*relayer/is,
    );
  });

  it("refuses a role given to the deployer, an admin that is a service key, a relayer named twice", function () {
    const [relayer] = roles.relayers;
    expect(() => parse({ ...roles, treasury: deployer }, TEST_NETWORK.name)).to.throw(
      `$global.treasury: ${deployer} is the deployer`,
    );
    expect(() => parse({ ...roles, relayers: [relayer, deployer] }, TEST_NETWORK.name)).to.throw(
      `$global.relayers.1: ${deployer} is the deployer`,
    );
    expect(() => parse({ ...roles, admin: roles.publisher }, TEST_NETWORK.name)).to.throw(
      /\$global\.admin: .* is also a service key/,
    );
    expect(() => parse({ ...roles, relayers: [relayer, relayer] }, TEST_NETWORK.name)).to.throw(
      "$global.relayers: an address is named twice",
    );
  });

  it("names npm start's settings instead of the file's when told", function () {
    expect(() =>
      parseDeployParameters(
        { ...roles, treasury: deployer },
        {
          deployer,
          network: TEST_NETWORK.name,
          source: "npm start's settings",
          names: { treasury: "TREASURY_ADDRESS" },
        },
      ),
    ).to.throw(`npm start's settings: TREASURY_ADDRESS: ${deployer} is the deployer`);
  });
});
