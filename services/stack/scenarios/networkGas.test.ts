import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { createPublicClient, http, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { SpawnedEdrChain as EdrChain } from "../../../testkit/chain/spawnEdrChain.ts";
import { spawnEdrChain } from "../../../testkit/chain/spawnEdrChain.ts";
import { runStack, stackPorts } from "../../../testkit/stack/runStack.ts";

/**
 * `NETWORK=arc-testnet` against a chain that speaks JSON-RPC over a real socket (the embedded EDR chain, standing in
 * for the public network through `RPC_URL`): a relayer key that holds no gas stops the start before anything is
 * sent, with a message that names the key.
 */
describe("npm start with NETWORK=arc-testnet and a relayer that holds no gas", function () {
  this.timeout(300_000);
  const stackDir = mkdtempSync(join(tmpdir(), "stack-network-"));
  const deploymentDir = mkdtempSync(join(tmpdir(), "stack-network-record-"));
  const keys = { deployer: generatePrivateKey(), relayer: generatePrivateKey(), publisher: generatePrivateKey() };
  let chain: EdrChain;

  before(async function () {
    chain = await spawnEdrChain({
      // The deployer and the publisher hold gas; the relayer does not.
      funded: [keys.deployer, keys.publisher].map((key) => ({ key, balance: parseEther("10") })),
      mining: "auto",
    });
  });

  after(async function () {
    await chain?.close();
    rmSync(stackDir, { recursive: true, force: true });
    rmSync(deploymentDir, { recursive: true, force: true });
  });

  it("refuses to start, naming the relayer and what one transaction costs, and sends nothing", async function () {
    const relayer = privateKeyToAccount(keys.relayer).address;
    const env = {
      ...(await stackPorts({ external: true })),
      STACK_DIR: stackDir,
      NETWORK: "arc-testnet",
      RPC_URL: chain.rpcUrl,
      IDENTITY_ADDRESS: privateKeyToAccount(generatePrivateKey()).address,
      DEPLOYER_KEY: keys.deployer,
      RELAYER_KEYS: keys.relayer,
      PUBLISHER_KEY: keys.publisher,
      TREASURY_ADDRESS: privateKeyToAccount(generatePrivateKey()).address,
      ADMIN_ADDRESS: privateKeyToAccount(generatePrivateKey()).address,
      DEPLOYMENT_DIR: deploymentDir,
      CALLER_AUTH_SECRET: generatePrivateKey(),
    };
    const failure = await runStack(env, { direct: true }).then(
      (running) => {
        running.kill();
        throw new Error("the stack started with an unfunded relayer");
      },
      (error: Error) => error.message,
    );
    expect(failure).to.match(/the stack exited with 1/);
    expect(failure).to.include(
      `refusing to start: relayer 1 of RELAYER_KEYS and facilitator (FACILITATOR_KEY) ${relayer} holds 0`,
    );
    expect(failure).to.include("0.00042: 21000 gas at 20000000000 wei base fee");
    expect(failure, "the funded keys are not named").not.to.include(privateKeyToAccount(keys.deployer).address);
    const client = createPublicClient({ transport: http(chain.rpcUrl) });
    expect(await client.getBlockNumber(), "no transaction was sent").to.equal(0n);
  });
});
