import { expect } from "chai";
import type { Hex, PublicClient } from "viem";
import { createPublicClient, http, isAddressEqual, keccak256, parseTransaction } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../../testkit/chain/localChain.ts";
import { devKey, ROLE, startLocalChain } from "../../../testkit/chain/localChain.ts";
import type { RpcProxy } from "../../../testkit/chain/rpcProxy.ts";
import { serveRpcProxy } from "../../../testkit/chain/rpcProxy.ts";
import { serviceChain } from "../../protocol/chain.ts";
import type { ReceiptWatcher } from "./createReceiptWatcher.ts";
import { createReceiptWatcher } from "./createReceiptWatcher.ts";
import { createNonceManager } from "./nonceManager.ts";
import type { SentTransaction } from "./sendTransaction.ts";
import { ChainUnavailableError, raiseFees, sendTransaction, TransactionCancelledError } from "./sendTransaction.ts";

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

  describe("after the replacements: the cancel", function () {
    let rpc: RpcProxy;
    let proxied: PublicClient;
    let proxiedReceipts: ReceiptWatcher;

    before(async function () {
      rpc = await serveRpcProxy(chain.connection.provider);
      const transport = http(rpc.url, { retryCount: 0 });
      proxied = createPublicClient({ chain: serviceChain(rpc.url), transport }) as PublicClient;
      proxiedReceipts = createReceiptWatcher(proxied, { pollMs: 20 });
    });

    afterEach(async function () {
      rpc.intercept("eth_sendRawTransaction", undefined);
      await chain.connection.provider.request({ method: "evm_setAutomine", params: [true] });
      await chain.connection.provider.request({ method: "evm_mine", params: [] });
    });

    after(async function () {
      await rpc?.close();
    });

    const isCancel = (raw: Hex) => {
      const tx = parseTransaction(raw);
      return tx.to !== undefined && tx.to !== null && isAddressEqual(tx.to, account.address) && tx.value === undefined;
    };

    /** Mining off; the proxy hands each cancel (a transfer to the signer itself) to `onCancel`, which answers it. */
    async function stuckUntil(onCancel: (raw: Hex, next: () => Promise<unknown>) => Promise<unknown>) {
      await chain.connection.provider.request({ method: "evm_setAutomine", params: [false] });
      const sent: Hex[] = [];
      rpc.intercept("eth_sendRawTransaction", async (call, next) => {
        const raw = call.params[0] as Hex;
        sent.push(raw);
        return isCancel(raw) ? onCancel(raw, () => next(call)) : next(call);
      });
      return sent;
    }

    const send = (extra: { maxFeePerGas?: bigint; onCancel?: (c: SentTransaction) => void } = {}) =>
      sendTransaction({
        publicClient: proxied,
        account,
        nonces: createNonceManager(proxied, account.address),
        receipts: proxiedReceipts,
        to: to(),
        data: "0x",
        gas: 30_000n,
        receiptTimeoutMs: 300,
        replacements: 2,
        ...extra,
      });

    it("raises fees by a quarter, held to the cap, and not at all when the cap keeps them under a tenth more", function () {
      expect(raiseFees({ maxFeePerGas: 100n, maxPriorityFeePerGas: 10n })).to.deep.equal({
        maxFeePerGas: 126n,
        maxPriorityFeePerGas: 13n,
      });
      expect(raiseFees({ maxFeePerGas: 100n, maxPriorityFeePerGas: 10n }, 115n)).to.deep.equal({
        maxFeePerGas: 115n,
        maxPriorityFeePerGas: 13n,
      });
      expect(raiseFees({ maxFeePerGas: 100n, maxPriorityFeePerGas: 10n }, 109n)).to.equal(null);
      expect(raiseFees({ maxFeePerGas: 100n, maxPriorityFeePerGas: 100n }, 120n)).to.deep.equal({
        maxFeePerGas: 120n,
        maxPriorityFeePerGas: 120n,
      });
    });

    it("a cancel mined takes the nonce: TransactionCancelledError, each replacement and the cancel paying a tenth more", async function () {
      const start = await publicClient.getTransactionCount({ address: account.address });
      let cancel: Hex | undefined;
      const sent = await stuckUntil(async (raw, next) => {
        const hash = await next();
        cancel = keccak256(raw);
        await chain.connection.provider.request({ method: "evm_mine", params: [] });
        await chain.connection.provider.request({ method: "evm_setAutomine", params: [true] });
        return hash;
      });
      const cancels: SentTransaction[] = [];
      let failed: unknown;
      try {
        await send({ onCancel: (c) => void cancels.push(c) });
      } catch (error) {
        failed = error;
      }
      expect(failed).to.be.instanceOf(TransactionCancelledError);
      expect((failed as TransactionCancelledError).cancel).to.equal(cancel);
      expect(cancels).to.deep.equal([{ signer: account.address, nonce: start, transaction: cancel }]);
      // The original and its two replacements, then the cancel, each paying more than the one before.
      const fees = sent.map((raw) => parseTransaction(raw).maxFeePerGas!);
      expect(fees).to.have.length(4);
      for (let i = 1; i < fees.length; i++) expect(fees[i]! >= (fees[i - 1]! * 110n) / 100n).to.equal(true);
      const mined = await publicClient.getTransaction({ hash: cancel! });
      expect(mined.nonce).to.equal(start);
      expect(mined.value).to.equal(0n);
      expect(await publicClient.getTransactionCount({ address: account.address })).to.equal(start + 1);
    });

    it("the original mined instead of the cancel is returned: what it carried was done, nothing is sent again", async function () {
      const start = await publicClient.getTransactionCount({ address: account.address });
      const sent = await stuckUntil(async (raw) => {
        // The cancel never reaches the chain, which mines the last replacement instead.
        await chain.connection.provider.request({ method: "evm_mine", params: [] });
        return keccak256(raw);
      });
      const receipt = await send();
      expect(receipt.status).to.equal("success");
      const mined = await publicClient.getTransaction({ hash: receipt.transactionHash });
      expect(mined.nonce).to.equal(start);
      expect(isAddressEqual(mined.to!, to())).to.equal(true);
      expect(receipt.transactionHash).to.equal(keccak256(sent[2]!));
    });

    it("no cancel above MAX_FEE_PER_GAS: replacements are held to the cap, and a cancel the cap keeps too cheap is not sent", async function () {
      const { maxFeePerGas: estimate } = await proxied.estimateFeesPerGas();
      const cap = (estimate * 130n) / 100n;
      const sent = await stuckUntil((_raw, next) => next());
      const cancels: SentTransaction[] = [];
      let failed: unknown;
      try {
        await send({ maxFeePerGas: cap, onCancel: (c) => void cancels.push(c) });
      } catch (error) {
        failed = error;
      }
      expect(failed).to.be.instanceOf(ChainUnavailableError);
      expect(failed).to.not.be.instanceOf(TransactionCancelledError);
      expect(cancels).to.have.length(0);
      expect(sent.some(isCancel)).to.equal(false);
      for (const raw of sent) expect(parseTransaction(raw).maxFeePerGas! <= cap).to.equal(true);
    });
  });
});
