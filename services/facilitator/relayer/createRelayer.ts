import type { Address, Hex, PublicClient, TransactionReceipt } from "viem";
import { createPublicClient, encodeFunctionData, http } from "viem";
import { abiOf } from "../../protocol/artifacts.ts";
import { serviceChain } from "../../protocol/chain.ts";
import { cachedRead } from "../cachedRead.ts";
import { isChainUnavailable } from "../chain.ts";
import type { BatchBook } from "./batchBook.ts";
import { BATCH_BASE_GAS, EXACT_GAS, itemGas, STRIKE_GAS } from "./batchGas.ts";
import type { Pending } from "./createDebitQueue.ts";
import { createDebitQueue } from "./createDebitQueue.ts";
import { createReceiptWatcher } from "./createReceiptWatcher.ts";
import type { Lane } from "./createSignerLanes.ts";
import { createSignerLanes } from "./createSignerLanes.ts";
import type { DebitItem } from "./debitItem.ts";
import type { DebitOutcome, ExactItem } from "./debitOutcome.ts";
import { encodeDebitBatch } from "./encodeDebitBatch.ts";
import { outcomeKey, readDebitOutcomes } from "./readDebitOutcomes.ts";
import { ChainUnavailableError, sendTransaction } from "./sendTransaction.ts";
import { simulateTransaction } from "./simulateTransaction.ts";

export type RelayerParameters = {
  rpcUrl: string;
  escrow: Address;
  registry: Address;
  relayerKeys: readonly Hex[];
  facilitatorKey: Hex;
  batchWindowMs: number;
  batchMaxItems: number;
  /**
   * Least time between two batches (ms; default 0): a batch is then cut early only once `batchMaxItems` are queued.
   * Committed settlement sets it to the batch window: nobody waits for the mining, so fewer, fuller batches cost
   * the chain and the indexer less (the indexer's cost is mostly per block).
   */
  minBatchIntervalMs?: number;
  receiptTimeoutMs: number;
  /** How long a fee estimate is reused (ms); replacements raise it anyway when a transaction is stuck. */
  feeCacheMs?: number;
  /** Called with the book of every mined settlement transaction (batches and `exact` payments). */
  onBatch?: (book: BatchBook) => void;
};

export type Relayer = ReturnType<typeof createRelayer>;

/**
 * The relayer: a pool of signers, each with its own nonce lane (createSignerLanes), that batches debits
 * (createDebitQueue) into one `debitBatchCompact` transaction (encodeDebitBatch) and reports each item's outcome
 * from the receipt's `BatchDebited` / `DebitSkipped` logs (readDebitOutcomes); `exact` payments and strikes go out in
 * transactions of their own.
 * @example const outcome = await relayer.debit(item)
 */
export function createRelayer(p: RelayerParameters) {
  const chain = serviceChain(p.rpcUrl);
  const transport = http(p.rpcUrl, { retryCount: 0, timeout: 10_000 });
  const publicClient = createPublicClient({ chain, transport }) as PublicClient;
  const escrowAbi = abiOf("PaymentEscrow");
  const registryAbi = abiOf("ResourceRegistry");
  // USDC (FiatToken) reverts with strings, `Error(string)`, which viem decodes under any ABI; only our own
  // contracts have custom errors.
  const errorAbis = [escrowAbi, registryAbi];
  const lanes = createSignerLanes(publicClient, p.relayerKeys, p.facilitatorKey);
  const fees = cachedRead(p.feeCacheMs ?? 1_000, () => publicClient.estimateFeesPerGas());
  const receipts = createReceiptWatcher(publicClient);
  const queue = createDebitQueue({
    batchWindowMs: p.batchWindowMs,
    batchMaxItems: p.batchMaxItems,
    minBatchIntervalMs: p.minBatchIntervalMs ?? 0,
    idleLane: lanes.idle,
    sendBatch,
  });

  const send = (lane: Lane, to: Address, data: Hex, gas: bigint, onBroadcast?: () => void) =>
    sendTransaction({
      publicClient,
      account: lane.account,
      nonces: lane.nonces,
      receipts,
      to,
      data,
      gas,
      receiptTimeoutMs: p.receiptTimeoutMs,
      fees,
      onBroadcast,
    });

  /** Throws TransactionRevertedError if the chain refuses `data` for good, ChainUnavailableError if it cannot say. */
  const simulate = (lane: Lane, to: Address, data: Hex, gas: bigint) =>
    simulateTransaction({ publicClient, from: lane.account.address, to, data, gas, abis: errorAbis });

  /** A mined revert: refused for good if it still reverts when simulated, else worth another try. */
  async function classifyRevert(lane: Lane, to: Address, data: Hex, gas: bigint, what: string): Promise<never> {
    await simulate(lane, to, data, gas);
    throw new ChainUnavailableError(`${what} reverted on chain but would succeed now`);
  }

  /** Sends one batch and settles each item's promise from the receipt; a failed batch of several is isolated. */
  async function sendBatch(lane: Lane, batch: Pending[], onBroadcast: () => void): Promise<void> {
    try {
      const data = encodeDebitBatch(batch.map((b) => b.item));
      const gas = batch.reduce((sum, b) => sum + itemGas(b.item), BATCH_BASE_GAS);
      let receipt: TransactionReceipt;
      try {
        receipt = await send(lane, p.escrow, data, gas, onBroadcast);
      } catch (error) {
        // A node that refuses a failing transaction at send (as Hardhat's does) answers, so the chain is reachable.
        if (isChainUnavailable(error)) throw error;
        if (batch.length > 1) return queue.isolate(batch);
        return await classifyRevert(lane, p.escrow, data, gas, "batch refused at send");
      }
      if (receipt.status !== "success" && batch.length > 1) return queue.isolate(batch);
      if (receipt.status !== "success")
        await classifyRevert(lane, p.escrow, data, gas, `batch ${receipt.transactionHash}`);
      const outcomes = readDebitOutcomes(receipt, p.escrow);
      p.onBatch?.(bookOf(receipt, batch.length, outcomes.values()));
      for (const { item, resolve, reject } of batch) {
        const outcome = outcomes.get(outcomeKey(item.authorization.buyer, item.authorization.nonce));
        if (outcome) resolve(outcome);
        else reject(new Error(`no debit or DebitSkipped logged for nonce ${item.authorization.nonce}`));
      }
    } catch (error) {
      for (const { reject } of batch) reject(error);
    }
  }

  return {
    publicClient,
    relayerAddresses: lanes.debit.map((lane) => lane.account.address),
    facilitatorAddress: lanes.strike.account.address,

    /** Queues a debit for the next batch; resolves with its outcome once the batch is mined. */
    debit: (item: DebitItem): Promise<DebitOutcome> => queue.push(item),

    /** Settles an `exact` payment in its own transaction. */
    async settleExact(item: ExactItem): Promise<DebitOutcome> {
      const lane = lanes.nextDebit();
      const data = encodeFunctionData({ abi: escrowAbi, functionName: "settleExact", args: [item] });
      await simulate(lane, p.escrow, data, EXACT_GAS);
      const receipt = await send(lane, p.escrow, data, EXACT_GAS);
      if (receipt.status !== "success")
        await classifyRevert(lane, p.escrow, data, EXACT_GAS, `settleExact ${receipt.transactionHash}`);
      const outcome = readDebitOutcomes(receipt, p.escrow).get(outcomeKey(item.from, item.nonce));
      if (!outcome) throw new Error(`no debit logged for exact nonce ${item.nonce}`);
      p.onBatch?.(bookOf(receipt, 1, [outcome]));
      return outcome;
    },

    /** Records a strike for a failed call on the registry; resolves with the transaction hash. */
    async recordStrike(resourceId: Hex, idemKey: Hex, reason: string): Promise<Hex> {
      const data = encodeFunctionData({
        abi: registryAbi,
        functionName: "recordStrike",
        args: [resourceId, idemKey, reason],
      });
      await simulate(lanes.strike, p.registry, data, STRIKE_GAS);
      const receipt = await send(lanes.strike, p.registry, data, STRIKE_GAS);
      if (receipt.status !== "success")
        await classifyRevert(lanes.strike, p.registry, data, STRIKE_GAS, `recordStrike ${receipt.transactionHash}`);
      return receipt.transactionHash;
    },

    /** Native gas balance of every signer, for /ready and /metrics. */
    gasBalances(): Promise<{ address: Address; balance: bigint }[]> {
      return Promise.all(
        lanes.all().map(async (lane) => ({
          address: lane.account.address,
          balance: await publicClient.getBalance({ address: lane.account.address }),
        })),
      );
    },

    /** Sends whatever is queued and waits for every batch in flight, including batches cut meanwhile. */
    drain: (): Promise<void> => queue.drain(),
  };
}

/** The book of one mined settlement transaction, from its receipt and the outcomes its logs gave. */
function bookOf(receipt: TransactionReceipt, items: number, outcomes: Iterable<DebitOutcome>): BatchBook {
  let debits = 0;
  let treasuryUnits = 0n;
  for (const outcome of outcomes) {
    if (outcome.kind !== "debited") continue;
    debits++;
    treasuryUnits += outcome.treasuryAmount;
  }
  return {
    transaction: receipt.transactionHash,
    block: receipt.blockNumber,
    items,
    debits,
    gasUsed: receipt.gasUsed,
    gasPriceWei: receipt.effectiveGasPrice,
    treasuryUnits,
  };
}
