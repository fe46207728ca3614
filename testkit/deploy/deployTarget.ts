import { execFile } from "node:child_process";
import type { Address, Hex, PublicClient } from "viem";
import { createPublicClient, createWalletClient, getAddress, http, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { abiOf, bytecodeOf } from "../../services/protocol/artifacts.ts";
import { serviceChain } from "../../services/protocol/chain.ts";
import { deployFiatToken } from "../../services/stack/deployFiatToken.ts";
import { spawnEdrChain } from "../chain/spawnEdrChain.ts";

const root = new URL("../..", import.meta.url).pathname;

/**
 * A chain started on its own, standing in for the test network before our deployment: it already holds a stablecoin
 * and an ERC-8004 identity registry, put there by a faucet key that also hands out gas.
 * @example const target = await startDeployTarget(); await target.fund(deployer); …; await target.close()
 */
export async function startDeployTarget() {
  const faucetKey = generatePrivateKey();
  const chain = await spawnEdrChain({ funded: [{ key: faucetKey, balance: parseEther("1000000") }], mining: "auto" });
  const client = createPublicClient({
    chain: serviceChain(chain.rpcUrl),
    transport: http(chain.rpcUrl),
  }) as PublicClient;
  const wallet = (key: Hex) =>
    createWalletClient({
      account: privateKeyToAccount(key),
      chain: serviceChain(chain.rpcUrl),
      transport: http(chain.rpcUrl),
    });
  const faucet = wallet(faucetKey);
  const token = await deployFiatToken({ publicClient: client, wallet: faucet, minter: faucet.account.address });
  const hash = await faucet.deployContract({
    abi: abiOf("IdentityRegistry"),
    bytecode: bytecodeOf("IdentityRegistry"),
  });
  const identity = getAddress((await client.waitForTransactionReceipt({ hash })).contractAddress!);
  return {
    rpcUrl: chain.rpcUrl,
    client,
    token,
    identity,
    /** A wallet of `key` on this chain. */
    wallet,
    /** Sends `amount` of gas to `to` from the faucet. */
    async fund(to: Address, amount = parseEther("10")) {
      await client.waitForTransactionReceipt({ hash: await faucet.sendTransaction({ to, value: amount }) });
    },
    /** Moves the chain's clock forward by `seconds` and mines a block. */
    async advance(seconds: number) {
      await chain.request("evm_increaseTime", [seconds]);
      await chain.request("evm_mine", []);
    },
    close: () => chain.close(),
  };
}

/**
 * Runs one of the deploy commands as an operator does (`npm run deploy -- <args>`, `npm run check-deployment`), with
 * `env` added to this process's environment; resolves with its exit code and output.
 * @example const { code, stdout } = await runDeployCommand("check-deployment", [], { RPC_URL, DEPLOYMENT_DIR })
 */
export function runDeployCommand(
  script: "deploy" | "check-deployment",
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      "npm",
      ["run", "--silent", script, ...(args.length ? ["--", ...args] : [])],
      { cwd: root, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
