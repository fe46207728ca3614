import { expect } from "chai";
import type { Hex } from "viem";
import { createPublicClient, createWalletClient, decodeErrorResult, encodeFunctionData, http, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { SpawnedEdrChain as EdrChain } from "../../testkit/chain/spawnEdrChain.ts";
import { spawnEdrChain } from "../../testkit/chain/spawnEdrChain.ts";
import { until } from "../../testkit/until.ts";
import { abiOf } from "../protocol/artifacts.ts";
import { serviceChain } from "../protocol/chain.ts";
import { BASE_FEE_FLOOR_WEI } from "../protocol/constants.ts";
import { deployFiatToken } from "../stack/deployFiatToken.ts";
import { devKey } from "../stack/devAccounts.ts";

const keys = [devKey(0), devKey(1), devKey(2)] as const;
/** 20 gwei as a number (chai compares numbers): exact below 2^53. */
const FLOOR = Number(BASE_FEE_FLOOR_WEI);
const funded = keys.map((key) => ({ key, balance: 10n ** 24n }));

function clientsOf(chain: EdrChain, key: Hex) {
  const viemChain = serviceChain(chain.rpcUrl);
  const transport = http(chain.rpcUrl);
  return {
    publicClient: createPublicClient({ chain: viemChain, transport }),
    wallet: createWalletClient({ account: privateKeyToAccount(key), chain: viemChain, transport }),
  };
}

describe("the embedded chain (startEdrChain, in a process of its own)", function () {
  let chain: EdrChain | undefined;
  afterEach(async function () {
    await chain?.close();
    chain = undefined;
  });

  it("keeps the test network's 20 gwei base fee floor through 100 empty blocks, and after a busy block", async function () {
    chain = await spawnEdrChain({ funded, mining: "auto" });
    const { publicClient, wallet } = clientsOf(chain, keys[0]);
    expect((await publicClient.getBlock()).baseFeePerGas, "the genesis block").to.equal(BASE_FEE_FLOOR_WEI);
    const receipt = await publicClient.waitForTransactionReceipt({
      hash: await wallet.sendTransaction({ to: privateKeyToAccount(keys[1]).address, value: 1n }),
    });
    expect(Number(receipt.effectiveGasPrice), "what a transfer pays per gas").to.be.at.least(FLOOR);
    for (let i = 0; i < 100; i++) await chain.request("evm_mine");
    const last = await publicClient.getBlockNumber();
    for (let number = 0n; number <= last; number++) {
      const block = await publicClient.getBlock({ blockNumber: number });
      expect(Number(block.baseFeePerGas), `block ${number}'s base fee`).to.be.at.least(FLOOR);
    }
    expect(last).to.equal(101n);
  });

  it("keeps the floor when it mines empty blocks on its own (interval mining)", async function () {
    chain = await spawnEdrChain({ funded, mining: { intervalMs: 20 } });
    const { publicClient } = clientsOf(chain, keys[0]);
    await until(
      async () => ((await publicClient.getBlockNumber()) >= 40n ? true : undefined),
      60_000,
      "40 interval-mined blocks",
    );
    const fees = await Promise.all(
      Array.from(
        { length: 41 },
        async (_, i) => (await publicClient.getBlock({ blockNumber: BigInt(i) })).baseFeePerGas,
      ),
    );
    for (const [number, fee] of fees.entries()) expect(fee, `block ${number}'s base fee`).to.equal(BASE_FEE_FLOOR_WEI);
  });

  /**
   * The relayer simulates a settlement (`eth_call`) before it sends it, and a revert is what tells a payment the chain
   * refuses for good from an unreachable chain. EDR answers a reverting call as a result holding the revert data
   * unless it bails on call failures, and so did this chain: every simulation passed, and a reverting `settleExact`
   * was sent again with every retry.
   */
  it("answers a reverting call with an error carrying the revert, as public nodes do", async function () {
    chain = await spawnEdrChain({ funded, mining: "auto" });
    const admin = clientsOf(chain, keys[0]);
    const token = await deployFiatToken({ publicClient: admin.publicClient, wallet: admin.wallet });
    const overdraw = encodeFunctionData({
      abi: abiOf("IFiatToken"),
      functionName: "transfer",
      args: [privateKeyToAccount(keys[2]).address, 1n],
    });
    const from = privateKeyToAccount(keys[1]).address;
    const answer = (await (
      await fetch(chain.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "eth_call",
          params: [{ from, to: token, data: overdraw }],
        }),
      })
    ).json()) as { result?: unknown; error?: { data?: { data?: unknown } } };
    expect(answer.result, "a result").to.equal(undefined);
    const revert = answer.error?.data?.data as Hex;
    const reason = decodeErrorResult({ abi: [], data: revert });
    expect(reason.args).to.deep.equal(["ERC20: transfer amount exceeds balance"]);
  });

  /**
   * Automine stamps each block at least a second after its parent unless blocks may share a timestamp: under one
   * transaction per call (the `exact` path, unbatched debits) the chain's clock ran hours ahead of the wall clock,
   * and authorizations signed for an hour from now expired on chain within minutes.
   */
  it("stamps a burst of 300 single-transaction payments at the wall clock, not a second apart", async function () {
    chain = await spawnEdrChain({ funded, mining: "auto" });
    const admin = clientsOf(chain, keys[0]);
    const buyer = clientsOf(chain, keys[1]);
    const payee = privateKeyToAccount(keys[2]).address;
    const address = await deployFiatToken({ publicClient: admin.publicClient, wallet: admin.wallet });
    const token = { address, abi: abiOf("IFiatToken") } as const;
    await admin.publicClient.waitForTransactionReceipt({
      hash: await admin.wallet.writeContract({
        ...token,
        functionName: "mint",
        args: [buyer.wallet.account.address, parseUnits("1000", 6)],
      }),
    });
    const first = await admin.publicClient.getBlockNumber();

    for (let i = 0; i < 300; i++)
      await buyer.publicClient.waitForTransactionReceipt({
        hash: await buyer.wallet.writeContract({ ...token, functionName: "transfer", args: [payee, 1_000n] }),
        pollingInterval: 5,
      });

    const last = await admin.publicClient.getBlock();
    expect(last.number - first, "one block per payment").to.equal(300n);
    const ahead = Number(last.timestamp) - Math.floor(Date.now() / 1000);
    expect(ahead, "seconds the chain's clock runs ahead of the wall clock").to.be.at.most(1);
    expect(await admin.publicClient.readContract({ ...token, functionName: "balanceOf", args: [payee] })).to.equal(
      300_000n,
    );
  });
});
