import type { Address, Hex, PublicClient, TransactionReceipt } from "viem";
import { createPublicClient, decodeEventLog, encodeFunctionData, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { abiOf } from "../../protocol/artifacts.ts";
import { serviceChain } from "../../protocol/chain.ts";
import { defined } from "../../protocol/defined.ts";
import { ERC1271_GAS_LIMIT, isChainUnavailable } from "../chain.ts";
import { compactDebit } from "./compactDebit.ts";
import type { DebitItem } from "./debitItem.ts";
import type { NonceManager } from "./nonceManager.ts";
import { createNonceManager } from "./nonceManager.ts";
import type { Fees } from "./sendTransaction.ts";
import { ChainUnavailableError, sendTransaction } from "./sendTransaction.ts";
import { simulateTransaction } from "./simulateTransaction.ts";

/** An `exact` payment for the escrow's `settleExact`. */
export type ExactItem = {
  resourceId: Hex;
  from: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
  signature: Hex;
};

/** What became of one debit on chain (`block`: the number of the block it was mined in). */
export type DebitOutcome =
  | {
      kind: "debited";
      transaction: Hex;
      block: bigint;
      amount: bigint;
      creatorAmount: bigint;
      treasuryAmount: bigint;
      payer: Address;
    }
  | { kind: "skipped"; transaction: Hex; reason: Hex };

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
  onBatch?: (size: number, gasUsed: bigint) => void;
};

export type Relayer = ReturnType<typeof createRelayer>;

/** One signer: its nonce lane, and whether a batch of its is being broadcast (the next one is cut after it). */
type Lane = { account: ReturnType<typeof privateKeyToAccount>; nonces: NonceManager; broadcasting: boolean };
/** A queued debit; `alone` once a batch it was in reverted: it then goes out in a batch of its own. */
type Pending = { item: DebitItem; resolve: (o: DebitOutcome) => void; reject: (e: unknown) => void; alone?: boolean };

/**
 * The relayer: a pool of signers, each with its own nonce lane, that batches debits arriving within
 * `batchWindowMs` (or `batchMaxItems`) into one `debitBatchCompact` transaction (`debitBatch` when an item has
 * no compact encoding, such as a contract wallet's signature) and reports each item's outcome
 * from the receipt's `Debited` / `DebitSkipped` logs. A signer cuts its next batch only once its previous one
 * has been broadcast, so under load whatever arrived meanwhile goes out together (bigger batches, fewer
 * transactions) while receipts are still awaited in parallel.
 * @example const outcome = await relayer.debit(item)
 */
export function createRelayer(p: RelayerParameters) {
  const chain = serviceChain(p.rpcUrl);
  const transport = http(p.rpcUrl, { retryCount: 0, timeout: 10_000 });
  const publicClient = createPublicClient({ chain, transport }) as PublicClient;
  const escrowAbi = abiOf("PaymentEscrow");
  const registryAbi = abiOf("ResourceRegistry");
  const errorAbis = [escrowAbi, registryAbi, abiOf("TestStablecoin")];
  const lanesByAddress = new Map<Address, Lane>();
  const laneFor = (key: Hex): Lane => {
    const account = privateKeyToAccount(key);
    let lane = lanesByAddress.get(account.address);
    if (!lane) {
      lane = { account, nonces: createNonceManager(publicClient, account.address), broadcasting: false };
      lanesByAddress.set(account.address, lane);
    }
    return lane;
  };
  const debitLanes = p.relayerKeys.map(laneFor);
  const strikeLane = laneFor(p.facilitatorKey);
  let nextLane = 0;
  let queue: Pending[] = [];
  let timer: NodeJS.Timeout | null = null;
  let lastCutAt = 0;
  let draining = false;
  const inFlight = new Set<Promise<void>>();

  let feeCache: { at: number; fees: Promise<Fees> } | null = null;
  const fees = (): Promise<Fees> => {
    if (!feeCache || Date.now() - feeCache.at >= (p.feeCacheMs ?? 1_000)) {
      const estimate = publicClient.estimateFeesPerGas();
      feeCache = { at: Date.now(), fees: estimate };
      estimate.catch(() => (feeCache = null));
    }
    return feeCache.fees;
  };

  const send = (lane: Lane, to: Address, data: Hex, gas: bigint, onBroadcast?: () => void) =>
    sendTransaction({
      publicClient,
      account: lane.account,
      nonces: lane.nonces,
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

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    while (queue.length > 0) {
      const wait = lastCutAt + (p.minBatchIntervalMs ?? 0) - Date.now();
      if (wait > 0 && !draining && queue.length < p.batchMaxItems) {
        timer = setTimeout(flush, wait);
        return;
      }
      const lane = idleLane();
      // Every signer is broadcasting: the first to finish cuts the next batch from everything queued by then.
      if (!lane) return;
      const batch = cutBatch();
      lastCutAt = Date.now();
      lane.broadcasting = true;
      let released = false;
      const broadcast = () => {
        if (released) return;
        released = true;
        lane.broadcasting = false;
        if (queue.length > 0) flush();
      };
      const run = sendBatch(lane, batch, broadcast).finally(() => {
        inFlight.delete(run);
        broadcast();
      });
      inFlight.add(run);
    }
  }

  /**
   * The next batch from the head of the queue: at most `batchMaxItems` items and MAX_BATCH_GAS of budgeted gas, and
   * an item marked `alone` by itself.
   */
  function cutBatch(): Pending[] {
    const batch: Pending[] = [];
    let gas = BATCH_BASE_GAS;
    for (const next of queue) {
      const first = batch[0];
      if (first && (first.alone || next.alone || batch.length >= p.batchMaxItems)) break;
      if (first && gas + itemGas(next.item) > MAX_BATCH_GAS) break;
      batch.push(next);
      gas += itemGas(next.item);
    }
    queue = queue.slice(batch.length);
    return batch;
  }

  /** No item can sink the others: after a failed batch each goes out again on its own, and fails only for itself. */
  function isolate(batch: Pending[]): void {
    queue = [...batch.map((b) => ({ ...b, alone: true })), ...queue];
    flush();
  }

  function idleLane(): Lane | undefined {
    for (let i = 0; i < debitLanes.length; i++) {
      const lane = debitLanes[nextLane++ % debitLanes.length];
      if (lane && !lane.broadcasting) return lane;
    }
    return undefined;
  }

  async function sendBatch(lane: Lane, batch: Pending[], onBroadcast: () => void): Promise<void> {
    try {
      const data = encodeBatch(batch.map((b) => b.item));
      const gas = batch.reduce((sum, b) => sum + itemGas(b.item), BATCH_BASE_GAS);
      let receipt: TransactionReceipt;
      try {
        receipt = await send(lane, p.escrow, data, gas, onBroadcast);
      } catch (error) {
        // A node that refuses a failing transaction at send (as Hardhat's does) answers, so the chain is reachable.
        if (isChainUnavailable(error)) throw error;
        if (batch.length > 1) return isolate(batch);
        return await classifyRevert(lane, p.escrow, data, gas, "batch refused at send");
      }
      if (receipt.status !== "success" && batch.length > 1) return isolate(batch);
      if (receipt.status !== "success")
        await classifyRevert(lane, p.escrow, data, gas, `batch ${receipt.transactionHash}`);
      p.onBatch?.(batch.length, receipt.gasUsed);
      const outcomes = outcomesOf(receipt);
      for (const { item, resolve, reject } of batch) {
        const outcome = outcomes.get(key(item.authorization.buyer, item.authorization.nonce));
        if (outcome) resolve(outcome);
        else reject(new Error(`no Debited or DebitSkipped log for nonce ${item.authorization.nonce}`));
      }
    } catch (error) {
      for (const { reject } of batch) reject(error);
    }
  }

  /** A batch in the compact encoding when every item has one (see compactDebit), else in full. */
  function encodeBatch(items: DebitItem[]): Hex {
    const compact = items.map(compactDebit);
    if (compact.every((c) => c !== null))
      return encodeFunctionData({ abi: escrowAbi, functionName: "debitBatchCompact", args: [compact] });
    return encodeFunctionData({ abi: escrowAbi, functionName: "debitBatch", args: [items] });
  }

  function outcomesOf(receipt: TransactionReceipt): Map<string, DebitOutcome> {
    const outcomes = new Map<string, DebitOutcome>();
    for (const log of receipt.logs) {
      if (log.address.toLowerCase() !== p.escrow.toLowerCase()) continue;
      try {
        const event = decodeEventLog({ abi: escrowAbi, data: log.data, topics: log.topics });
        if (event.eventName === "Debited") {
          const a = event.args;
          outcomes.set(key(a.buyer, a.nonce), {
            kind: "debited",
            transaction: receipt.transactionHash,
            block: receipt.blockNumber,
            amount: a.amount,
            creatorAmount: a.amount - a.treasuryAmount,
            treasuryAmount: a.treasuryAmount,
            payer: a.buyer,
          });
        } else if (event.eventName === "DebitSkipped") {
          outcomes.set(key(event.args.buyer, event.args.nonce), {
            kind: "skipped",
            transaction: receipt.transactionHash,
            reason: event.args.reason,
          });
        }
      } catch {}
    }
    return outcomes;
  }

  return {
    publicClient,
    relayerAddresses: debitLanes.map((lane) => lane.account.address),
    facilitatorAddress: strikeLane.account.address,

    /** Queues a debit for the next batch; resolves with its outcome once the batch is mined. */
    debit(item: DebitItem): Promise<DebitOutcome> {
      return new Promise<DebitOutcome>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (queue.length >= p.batchMaxItems) flush();
        else timer ??= setTimeout(flush, p.batchWindowMs);
      });
    },

    /** Settles an `exact` payment in its own transaction. */
    async settleExact(item: ExactItem): Promise<DebitOutcome> {
      const lane = defined(debitLanes[nextLane++ % debitLanes.length], "a debit lane");
      const data = encodeFunctionData({ abi: escrowAbi, functionName: "settleExact", args: [item] });
      await simulate(lane, p.escrow, data, EXACT_GAS);
      const receipt = await send(lane, p.escrow, data, EXACT_GAS);
      if (receipt.status !== "success")
        await classifyRevert(lane, p.escrow, data, EXACT_GAS, `settleExact ${receipt.transactionHash}`);
      const outcome = outcomesOf(receipt).get(key(item.from, item.nonce));
      if (!outcome) throw new Error(`no Debited log for exact nonce ${item.nonce}`);
      return outcome;
    },

    /** Records a strike for a failed call on the registry; resolves with the transaction hash. */
    async recordStrike(resourceId: Hex, idemKey: Hex, reason: string): Promise<Hex> {
      const data = encodeFunctionData({
        abi: registryAbi,
        functionName: "recordStrike",
        args: [resourceId, idemKey, reason],
      });
      await simulate(strikeLane, p.registry, data, STRIKE_GAS);
      const receipt = await send(strikeLane, p.registry, data, STRIKE_GAS);
      if (receipt.status !== "success")
        await classifyRevert(strikeLane, p.registry, data, STRIKE_GAS, `recordStrike ${receipt.transactionHash}`);
      return receipt.transactionHash;
    },

    /** Native gas balance of every signer, for /ready and /metrics. */
    gasBalances(): Promise<{ address: Address; balance: bigint }[]> {
      return Promise.all(
        [...lanesByAddress.values()].map(async (lane) => ({
          address: lane.account.address,
          balance: await publicClient.getBalance({ address: lane.account.address }),
        })),
      );
    },

    /** Sends whatever is queued and waits for every batch in flight, including batches cut meanwhile. */
    async drain(): Promise<void> {
      draining = true;
      flush();
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

/** Gas budgeted for a batch transaction itself, before its items. */
const BATCH_BASE_GAS = 150_000n;
/** Gas budgeted per batch item signed by a key (docs/gas.md measures 34–41k; the rest is headroom). */
const ITEM_GAS = 70_000n;
/**
 * Extra gas budgeted for an item whose signature a contract checks (ERC-1271): the escrow forwards at most
 * ERC1271_GAS_LIMIT (500k), which the call only gets while 64/63 of it is left, plus the call and its calldata copy.
 */
const ERC1271_ITEM_GAS = (ERC1271_GAS_LIMIT * 64n) / 63n + 30_000n;
/** Most gas one batch transaction is budgeted: well below a block's gas limit. */
const MAX_BATCH_GAS = 12_000_000n;
/** Gas of a `settleExact` transaction: 130k measured (docs/gas.md), plus the token's ERC-1271 check of a contract payer. */
const EXACT_GAS = 250_000n + ERC1271_ITEM_GAS;

/**
 * The gas an item is budgeted in a batch: a key-signed item its measured cost with headroom, an item a contract
 * must check (or that has no compact encoding, such as a contract wallet's signature) also the most that check may
 * use on chain, so that no item can make its batch run out of gas.
 */
function itemGas(item: DebitItem): bigint {
  return item.signedByContract || compactDebit(item) === null ? ITEM_GAS + ERC1271_ITEM_GAS : ITEM_GAS;
}
/** Gas of a `recordStrike` transaction. */
const STRIKE_GAS = 200_000n;

function key(buyer: string, nonce: string): string {
  return `${buyer.toLowerCase()}:${nonce.toLowerCase()}`;
}
