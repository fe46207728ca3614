import { expect } from "chai";
import type { PublicClient } from "viem";
import { createPublicClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import { serviceChain } from "../../protocol/chain.ts";
import type { ReceiptWatcher } from "./createReceiptWatcher.ts";
import { createReceiptWatcher } from "./createReceiptWatcher.ts";
import { createNonceManager } from "./nonceManager.ts";
import { ChainUnavailableError, sendTransaction } from "./sendTransaction.ts";

describe("relayer transactions", function () {
  let chain: LocalChain;
  let publicClient: PublicClient;
  let receipts: ReceiptWatcher;
  const account = privateKeyToAccount(devKey(ROLE.relayer2));

  before(async function () {
    chain = await startLocalChain();
    const transport = http(chain.rpcUrl, { retryCount: 0 });
    publicClient = createPublicClient({ chain: serviceChain(chain.rpcUrl), transport }) as PublicClient;
    receipts = createReceiptWatcher(publicClient, { pollMs: 20 });
  });

  after(async function () {
    await chain.connection.provider.request({ method: "evm_setAutomine", params: [true] });
    await chain?.close();
  });

  const to = () => chain.address(ROLE.other);

  it("replaces a stuck transaction with a fee bump on the same nonce, leaving no gap", async function () {
    const nonces = createNonceManager(publicClient, account.address);
    const start = await publicClient.getTransactionCount({ address: account.address });
    const initial = await publicClient.estimateFeesPerGas();
    await chain.connection.provider.request({ method: "evm_setAutomine", params: [false] });
    const mined = setTimeout(() => void chain.connection.provider.request({ method: "evm_mine", params: [] }), 900);
    try {
      const receipt = await sendTransaction({
        publicClient,
        account,
        nonces,
        receipts,
        to: to(),
        data: "0x",
        gas: 30_000n,
        receiptTimeoutMs: 400,
        replacements: 3,
      });
      expect(receipt.status).to.equal("success");
      const tx = await publicClient.getTransaction({ hash: receipt.transactionHash });
      expect(tx.nonce).to.equal(start);
      const first = (await chain.connection.provider.request({
        method: "eth_getBlockByNumber",
        params: ["latest", false],
      })) as { transactions: string[] };
      expect(first.transactions).to.have.length(1);
      expect(tx.maxFeePerGas! > initial.maxFeePerGas).to.equal(
        true,
        "the mined transaction is a fee-bumped replacement",
      );
    } finally {
      clearTimeout(mined);
      await chain.connection.provider.request({ method: "evm_setAutomine", params: [true] });
    }
    const next = await sendTransaction({
      publicClient,
      account,
      nonces,
      receipts,
      to: to(),
      data: "0x",
      gas: 30_000n,
      receiptTimeoutMs: 2_000,
    });
    expect((await publicClient.getTransaction({ hash: next.transactionHash })).nonce).to.equal(start + 1);
  });

  it("resyncs after a send that never reached the node, so the next nonce has no gap", async function () {
    const nonces = createNonceManager(publicClient, account.address);
    const start = await publicClient.getTransactionCount({ address: account.address });
    await chain.rpc.stop();
    let failed: unknown;
    try {
      await sendTransaction({
        publicClient,
        account,
        nonces,
        receipts,
        to: to(),
        data: "0x",
        gas: 30_000n,
        receiptTimeoutMs: 500,
      });
    } catch (error) {
      failed = error;
    } finally {
      await chain.rpc.resume();
    }
    expect(failed).to.be.instanceOf(Error);
    const receipt = await sendTransaction({
      publicClient,
      account,
      nonces,
      receipts,
      to: to(),
      data: "0x",
      gas: 30_000n,
      receiptTimeoutMs: 2_000,
    });
    expect((await publicClient.getTransaction({ hash: receipt.transactionHash })).nonce).to.equal(start);
  });

  it("gives up with ChainUnavailableError when no replacement gets mined", async function () {
    const nonces = createNonceManager(publicClient, account.address);
    await chain.connection.provider.request({ method: "evm_setAutomine", params: [false] });
    try {
      let failed: unknown;
      try {
        await sendTransaction({
          publicClient,
          account,
          nonces,
          receipts,
          to: to(),
          data: "0x",
          gas: 30_000n,
          receiptTimeoutMs: 150,
          replacements: 1,
        });
      } catch (error) {
        failed = error;
      }
      expect(failed).to.be.instanceOf(ChainUnavailableError);
    } finally {
      await chain.connection.provider.request({ method: "evm_setAutomine", params: [true] });
      await chain.connection.provider.request({ method: "evm_mine", params: [] });
    }
    const pending = await publicClient.getTransactionCount({ address: account.address, blockTag: "pending" });
    const latest = await publicClient.getTransactionCount({ address: account.address, blockTag: "latest" });
    expect(pending).to.equal(latest);
  });
});
