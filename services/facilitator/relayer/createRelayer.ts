import type { Logger } from "pino";
import type { Address, Hex, PublicClient, TransactionReceipt } from "viem";
import { createPublicClient, encodeFunctionData } from "viem";
import { rpcUrlsOf } from "../../http/rpcUrls.ts";
import { abiOf } from "../../protocol/artifacts.ts";
import { serviceChain } from "../../protocol/chain.ts";
import { readBaseFeeWei } from "../../protocol/readBaseFeeWei.ts";
import { cachedRead } from "../cachedRead.ts";
import { isChainUnavailable } from "../chain.ts";
import type { RpcErrorObserver } from "../observedTransport.ts";
import { DEFAULT_RPC_TIMEOUT_MS, rpcTransport } from "../observedTransport.ts";
import type { BatchBook } from "./batchBook.ts";
import { BATCH_BASE_GAS, EXACT_GAS, fullBatchGas, itemGas, STRIKE_GAS } from "./batchGas.ts";
import { rpcErrorReason } from "./classifyRpcError.ts";
import type { HeldPending, Pending } from "./createDebitQueue.ts";
import { createDebitQueue } from "./createDebitQueue.ts";
import { createNonceClearer } from "./createNonceClearer.ts";
import { createReceiptWatcher } from "./createReceiptWatcher.ts";
import type { Lane } from "./createSignerLanes.ts";
import { createSignerLanes, holds } from "./createSignerLanes.ts";
import type { SignerLeaseBook } from "./createSignerLeasing.ts";
import { createSignerLeasing } from "./createSignerLeasing.ts";
import type { DebitItem } from "./debitItem.ts";
import type { DebitOutcome, ExactItem } from "./debitOutcome.ts";
import { decodeRevert } from "./decodeRevert.ts";
import { encodeDebitBatch } from "./encodeDebitBatch.ts";
import type { BatchEconomics, FeeSnapshot, ForcedReason, HoldSettings, SendReason } from "./holdPolicy.ts";
import { batchEconomics, HOLD_RECHECK_MS, holdVerdict } from "./holdPolicy.ts";
import { outcomeKey, readDebitOutcomes } from "./readDebitOutcomes.ts";
import { RelayerCannotPayError } from "./relayerCannotPay.ts";
import type { RpcFault, SentTransaction } from "./sendTransaction.ts";
import {
  ChainUnavailableError,
  sendTransaction,
  TransactionCancelledError,
  TransactionRevertedError,
} from "./sendTransaction.ts";
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
  /**
   * Highest `maxFeePerGas` (wei) the relayer pays: above it no transaction is sent (debits wait) and new debits are
   * refused (`fee_above_cap`). Unset: no cap.
   */
  maxFeePerGas?: bigint | undefined;
  /**
   * Where RPC faults met on sends, and cancels, are logged: their kind, the transaction's hash and nonce, never its
   * bytes.
   */
  logger?: Pick<Logger, "warn">;
  /**
   * How long the facilitator's reads wait for an answer (ms; `RPC_TIMEOUT_MS`, default DEFAULT_RPC_TIMEOUT_MS): the
   * relayer's requests wait twice as long, as a send or a gas estimate takes a node longer than a read.
   */
  rpcTimeoutMs?: number;
  /** Told of every failed RPC request (metrics). */
  onRpcError?: RpcErrorObserver;
  /** Called with every fee-bumped replacement of a transaction not mined in time. */
  onReplacement?: (replacement: SentTransaction) => void;
  /**
   * Called with every cancel: `stuck`, of a transaction not mined through its replacements; `unknown`, at a pending
   * nonce the relayer holds no transaction of (sent before a crash, given up, or lost by the node).
   */
  onCancel?: (cancel: SentTransaction & { reason: CancelReason }) => void;
  /** Called with the book of every mined settlement transaction (batches and `exact` payments). */
  onBatch?: (book: BatchBook) => void;
  /**
   * Where the signers are leased among instances sharing the keys (createSignerLeasing), and for how long (ms); the
   * relayer then sends only from signers it holds, after `startLeasing`. Unset: every signer is this process's.
   */
  leases?: { book: SignerLeaseBook; leaseMs: number };
  /**
   * Holding committed debits until their batch pays for itself (holdPolicy.ts), with the escrow's fee (bps) to split
   * their amounts by. Unset, or a longest hold of 0: every debit goes out in the next batch, as in confirmed settlement.
   */
  hold?: (HoldSettings & { feeBps: () => Promise<number> }) | undefined;
  /** Now, in seconds (the facilitator's clock); holding reads it. */
  now?: () => number;
  /**
   * Called with every batch cut: why it goes out, its items, how long each held debit was held (s), and what the batch
   * was expected to earn and cost at the fee read last (undefined before the first read).
   */
  onBatchCut?: (cut: BatchCut) => void;
};

/** One batch cut from the queue, as onBatchCut is told of it. */
export type BatchCut = {
  reason: SendReason;
  items: number;
  heldSeconds: number[];
  economics: BatchEconomics | undefined;
};

/** What the relayer holds now: how many debits, since when the oldest (s), and what sending them all now would earn less cost. */
export type HeldDebits = { debits: number; oldestAt: number | null; economics: BatchEconomics | undefined };

export type Relayer = ReturnType<typeof createRelayer>;

/** Why the relayer sent a cancel: a transaction of its own stuck, or a pending nonce it holds no transaction of. */
export type CancelReason = "stuck" | "unknown";

/** A debit is sent again after at most this many cancelled batches; after that it fails over to the retrier. */
const MAX_REQUEUES = 2;

/**
 * The relayer: a pool of signers, each with its own nonce lane (createSignerLanes), that batches debits
 * (createDebitQueue) into one `debitBatchCompact` transaction (encodeDebitBatch) and reports each item's outcome
 * from the receipt's `BatchDebited` / `DebitSkipped` logs (readDebitOutcomes); `exact` payments and strikes go out in
 * transactions of their own.
 * @example const outcome = await relayer.debit(item)
 */
export function createRelayer(p: RelayerParameters) {
  const chain = serviceChain(rpcUrlsOf(p.rpcUrl)[0] ?? p.rpcUrl);
  const transport = rpcTransport(
    p.rpcUrl,
    { retryCount: 0, timeout: 2 * (p.rpcTimeoutMs ?? DEFAULT_RPC_TIMEOUT_MS) },
    p.onRpcError,
  );
  const publicClient = createPublicClient({ chain, transport }) as PublicClient;
  const escrowAbi = abiOf("PaymentEscrow");
  const registryAbi = abiOf("ResourceRegistry");
  // USDC (FiatToken) reverts with strings, `Error(string)`, which viem decodes under any ABI; only our own
  // contracts have custom errors.
  const errorAbis = [escrowAbi, registryAbi];
  const fees = cachedRead(p.feeCacheMs ?? 1_000, () => publicClient.estimateFeesPerGas());
  const receipts = createReceiptWatcher(publicClient);

  /** Signers whose last send was refused for insufficient funds, and since when (ms): paused until funded. */
  const unfunded = new Map<Address, number>();

  /** Logs an RPC fault met on a send by kind, hash and nonce, never the transaction's bytes. */
  function onFault(fault: RpcFault): void {
    if (fault.kind === "insufficient_funds" && !unfunded.has(fault.signer)) unfunded.set(fault.signer, Date.now());
    p.logger?.warn(
      {
        kind: fault.kind,
        transaction: fault.transaction,
        signer: fault.signer,
        nonce: fault.nonce,
        reason: fault.reason,
      },
      `relayer send met an RPC fault: ${fault.kind}`,
    );
  }

  /** Logs a cancel by its hash and nonce (never its bytes) and counts it. */
  function cancelled(reason: CancelReason) {
    return (cancel: SentTransaction) => {
      p.logger?.warn(
        { signer: cancel.signer, nonce: cancel.nonce, transaction: cancel.transaction, reason },
        reason === "stuck"
          ? "relayer cancel sent: a transaction was not mined through its replacements"
          : "relayer cancel sent: a pending nonce held no transaction of this relayer",
      );
      p.onCancel?.({ ...cancel, reason });
    };
  }

  const clearNonces = createNonceClearer({
    publicClient,
    receipts,
    fees,
    maxFeePerGas: p.maxFeePerGas,
    receiptTimeoutMs: p.receiptTimeoutMs,
    onFault,
    onCancel: cancelled("unknown"),
    onFailure: (signer, error) =>
      p.logger?.warn(
        { signer, err: rpcErrorReason(error) },
        "relayer could not clear unknown pending nonces; the next resync tries again",
      ),
  });
  const lanes = createSignerLanes(publicClient, p.relayerKeys, p.facilitatorKey, (account, nonces) => {
    void clearNonces(account, nonces);
  });
  const now = p.now ?? (() => Date.now() / 1000);
  const hold = p.hold && p.hold.longestHoldSeconds > 0 ? p.hold : undefined;
  const baseFee = cachedRead(p.feeCacheMs ?? 1_000, () => readBaseFeeWei(publicClient));
  /** The fee read last for holding: what a batch sent now is expected to pay per gas, and the escrow's fee. */
  let feeSnapshot: FeeSnapshot | undefined;
  /** When `feeSnapshot` was read (s): it is read only while something is held, so it may be from a quiet hour ago. */
  let feeSnapshotAt = Number.NEGATIVE_INFINITY;
  /**
   * The fee read last while it is fresh (read within HOLD_RECHECK_MS), else undefined: a debit arriving after a quiet
   * spell is held until the fee is read again, never judged to pay at an old, lower fee.
   */
  const freshFee = () => (now() - feeSnapshotAt <= HOLD_RECHECK_MS / 1000 ? feeSnapshot : undefined);
  /**
   * Reads the fee a batch sent now would pay: the base fee plus the priority fee (the node's estimate), at most the
   * cap; and the escrow's fee.
   */
  async function readFeeSnapshot(): Promise<FeeSnapshot | undefined> {
    if (!hold) return undefined;
    const [base, { maxPriorityFeePerGas }, feeBps] = await Promise.all([baseFee(), fees(), hold.feeBps()]);
    const price = base + (maxPriorityFeePerGas ?? 0n);
    feeSnapshot = {
      gasPriceWei: p.maxFeePerGas !== undefined && price > p.maxFeePerGas ? p.maxFeePerGas : price,
      feeBps,
    };
    feeSnapshotAt = now();
    return feeSnapshot;
  }
  const queue = createDebitQueue({
    batchWindowMs: p.batchWindowMs,
    batchMaxItems: p.batchMaxItems,
    minBatchIntervalMs: p.minBatchIntervalMs ?? 0,
    idleLane: lanes.idle,
    sendBatch,
    now,
    ...(hold && {
      hold: {
        verdict: (batch, queued) => holdVerdict({ batch, queued, fee: freshFee(), settings: hold, now: now() }),
        refresh: readFeeSnapshot,
      },
    }),
  });

  /** Tells onBatchCut of a batch going out, and logs a send forced while it did not pay for itself. */
  function batchCut(batch: Pending[], reason: SendReason): ForcedReason | undefined {
    const economics =
      feeSnapshot &&
      batchEconomics(
        batch.map((b) => b.item),
        feeSnapshot,
      );
    const at = now();
    const heldSeconds = batch.filter((b) => b.mayHold).map((b) => Math.max(0, at - (b.queuedAt ?? at)));
    p.onBatchCut?.({ reason, items: batch.length, heldSeconds, economics });
    if (reason !== "deadline" && reason !== "longest_hold") return undefined;
    p.logger?.warn(
      {
        reason,
        items: batch.length,
        treasuryUnits: economics?.treasuryUnits.toString(),
        costUnits: economics?.costUnits.toString(),
        marginUnits: economics?.marginUnits.toString(),
      },
      reason === "deadline"
        ? "relayer sends held debits forced by a deadline: the batch does not pay for itself at the current fee"
        : "relayer sends held debits forced by the longest hold: the batch does not pay for itself at the current fee",
    );
    return reason;
  }

  const leasing =
    p.leases && createSignerLeasing({ ...p.leases, lanes, onTaken: () => queue.kick(), logger: p.logger });

  /** Refuses to send from no signer: this instance holds none of the debit signers' leases (other instances do). */
  const heldDebitLane = (): Lane => {
    const lane = lanes.nextDebit();
    if (!lane) throw new ChainUnavailableError("no_signer: this instance holds no relayer signer's lease; retry later");
    return lane;
  };

  /** The debit signers, each once. */
  const debitSigners = [...new Set(lanes.debit.map((lane) => lane.account.address))];

  /**
   * The relayer's funding at the current fee: the fee, the least balance a signer must hold to pay for one full batch
   * up front (a full batch's gas x maxFeePerGas), and the debit signers holding less. Read at most once per fee period.
   */
  const funding = cachedRead(p.feeCacheMs ?? 1_000, async () => {
    const [{ maxFeePerGas }, balances] = await Promise.all([
      fees(),
      Promise.all(
        debitSigners.map(async (address) => ({ address, balance: await publicClient.getBalance({ address }) })),
      ),
    ]);
    const minimumBalance = fullBatchGas(p.batchMaxItems) * maxFeePerGas;
    const belowMinimum = balances.filter((b) => b.balance < minimumBalance).map((b) => b.address);
    return { maxFeePerGas, minimumBalance, belowMinimum };
  });

  /** Refuses to send while the chain's fee is above the cap: the transaction waits, to be sent once the fee falls. */
  async function ensureFeeUnderCap(): Promise<void> {
    if (p.maxFeePerGas === undefined) return;
    const { maxFeePerGas } = await fees();
    if (maxFeePerGas > p.maxFeePerGas)
      throw new ChainUnavailableError(`fee_above_cap: the chain's fee ${maxFeePerGas} wei is above the cap`);
  }

  /**
   * Refuses to send from a signer marked unfunded until its balance covers `gas` at the current fee, so a relayer out
   * of gas reads its balance instead of sending transactions the node refuses; clears the mark once it does.
   */
  async function ensureFunded(lane: Lane, gas: bigint): Promise<void> {
    const address = lane.account.address;
    if (!unfunded.has(address)) return;
    const [balance, { maxFeePerGas }] = await Promise.all([publicClient.getBalance({ address }), fees()]);
    if (balance >= gas * maxFeePerGas) {
      unfunded.delete(address);
      p.logger?.warn({ signer: address }, "relayer funded again; sending resumes");
      return;
    }
    throw new ChainUnavailableError(`insufficient_funds: relayer ${address} cannot pay for its transactions`, {
      kind: "insufficient_funds",
    });
  }

  const send = async (lane: Lane, to: Address, data: Hex, gas: bigint, onBroadcast?: () => void) => {
    try {
      await ensureFeeUnderCap();
      await ensureFunded(lane, gas);
    } catch (error) {
      onBroadcast?.();
      throw error;
    }
    return sendTransaction({
      publicClient,
      account: lane.account,
      nonces: lane.nonces,
      receipts,
      to,
      data,
      gas,
      receiptTimeoutMs: p.receiptTimeoutMs,
      fees,
      maxFeePerGas: p.maxFeePerGas,
      onBroadcast,
      onFault,
      onReplacement: p.onReplacement,
      onCancel: cancelled("stuck"),
    });
  };

  /** Throws TransactionRevertedError if the chain refuses `data` for good, ChainUnavailableError if it cannot say. */
  const simulate = (lane: Lane, to: Address, data: Hex, gas: bigint) =>
    simulateTransaction({ publicClient, from: lane.account.address, to, data, gas, abis: errorAbis });

  /**
   * A transaction the node refused at send (it answered, so the chain is reachable): refused for good when the node
   * answered with a revert (a node that executes at send, as Hardhat's does) or the simulation reverts, else worth
   * another try.
   */
  async function refusedAtSend(lane: Lane, to: Address, data: Hex, gas: bigint, error: unknown): Promise<never> {
    const reverted = decodeRevert(error, errorAbis);
    if (reverted) throw reverted;
    await simulate(lane, to, data, gas);
    throw new ChainUnavailableError(
      `refused at send but would succeed now: ${(error as Error).message.split("\n")[0]}`,
    );
  }

  /** Sends a transaction of its own (an `exact` payment, a strike); a refusal at send as refusedAtSend says. */
  /** Runs `work` (a simulation, then sendAlone) with `lane` counted as sending: the leasing keeps it meanwhile. */
  async function onLane<T>(lane: Lane, work: () => Promise<T>): Promise<T> {
    lane.sending++;
    try {
      return await work();
    } finally {
      lane.sending--;
    }
  }

  async function sendAlone(lane: Lane, to: Address, data: Hex, gas: bigint): Promise<TransactionReceipt> {
    try {
      return await send(lane, to, data, gas);
    } catch (error) {
      if (isChainUnavailable(error)) throw error;
      return refusedAtSend(lane, to, data, gas, error);
    }
  }

  /**
   * A transaction mined reverted is refused for good, never sent again for its payment: with the reason its
   * simulation now gives, or, when the simulation passes, as reverted on chain. A simulation that passes after the
   * chain reverted the same transaction says more about the node than about the payment (one that answers a reverting
   * call as a result, as EDR does without `bailOnCallFailure`, passes every simulation), and trusting it resent a
   * reverting `settleExact` with every retry.
   */
  async function refuseMinedRevert(
    lane: Lane,
    to: Address,
    data: Hex,
    gas: bigint,
    receipt: TransactionReceipt,
  ): Promise<never> {
    await simulate(lane, to, data, gas);
    throw new TransactionRevertedError(`reverted on chain in ${receipt.transactionHash}`, "0x");
  }

  /**
   * Sends one batch and settles each item's promise from the receipt. A batch of several is split into single
   * transactions only when the chain shows one of its items reverts (mined reverted, or refused at send and its
   * simulation reverts); any other fault leaves the batch whole, to be resent as it is.
   */
  async function sendBatch(lane: Lane, batch: Pending[], onBroadcast: () => void, reason: SendReason): Promise<void> {
    const forced = batchCut(batch, reason);
    try {
      const data = encodeDebitBatch(batch.map((b) => b.item));
      const gas = batch.reduce((sum, b) => sum + itemGas(b.item), BATCH_BASE_GAS);
      let receipt: TransactionReceipt;
      try {
        receipt = await send(lane, p.escrow, data, gas, onBroadcast);
      } catch (error) {
        // Cancelled: nothing of the batch was done and its nonce is used; its debits go out again in the next batch.
        if (error instanceof TransactionCancelledError && batch.every((b) => (b.cancelled ?? 0) < MAX_REQUEUES))
          return queue.requeue(batch);
        if (isChainUnavailable(error)) throw error;
        if (batch.length === 1) return await refusedAtSend(lane, p.escrow, data, gas, error);
        try {
          return await refusedAtSend(lane, p.escrow, data, gas, error);
        } catch (refusal) {
          if (refusal instanceof TransactionRevertedError) return queue.isolate(batch);
          throw refusal;
        }
      }
      if (receipt.status !== "success" && batch.length > 1) return queue.isolate(batch);
      if (receipt.status !== "success") await refuseMinedRevert(lane, p.escrow, data, gas, receipt);
      const outcomes = readDebitOutcomes(receipt, p.escrow);
      p.onBatch?.({ ...bookOf(receipt, batch.length, outcomes.values()), ...(forced && { forced }) });
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

    /**
     * Queues a debit for the next batch; resolves with its outcome once the batch is mined. Refused at once (retryable,
     * `no_signer`) while this instance holds no debit signer: the settlement retrier, on any instance, sends it later.
     * `mayHold`: a committed debit nobody awaits, which holding may keep until its batch pays for itself.
     */
    async debit(item: DebitItem, options: { mayHold?: boolean } = {}): Promise<DebitOutcome> {
      if (!lanes.anyOpen())
        throw new ChainUnavailableError("no_signer: this instance holds no relayer signer's lease; retry later");
      return queue.push(item, options);
    },

    /** Whether this instance has a debit of `buyer` and `nonce` queued (held, perhaps) or in flight. */
    debiting: (buyer: string, nonce: string): boolean => queue.has(buyer, nonce),

    /** Whether this instance holds a debit of `buyer` and `nonce` until its batch pays for itself. */
    holding: (buyer: string, nonce: string): boolean => queue.holds(buyer, nonce),

    /** The debits held now, since when the oldest, and what sending them together at the fee read last would earn less cost. */
    async heldDebits(): Promise<HeldDebits> {
      await readFeeSnapshot().catch(() => undefined);
      const held: HeldPending[] = queue.held();
      const oldestAt = held.reduce<number | null>(
        (oldest, h) => (oldest === null || h.queuedAt < oldest ? h.queuedAt : oldest),
        null,
      );
      const economics =
        feeSnapshot && held.length > 0
          ? batchEconomics(
              held.map((h) => h.item),
              feeSnapshot,
            )
          : undefined;
      return { debits: held.length, oldestAt, economics };
    },

    /** Settles an `exact` payment in its own transaction. */
    async settleExact(item: ExactItem): Promise<DebitOutcome> {
      const lane = heldDebitLane();
      const data = encodeFunctionData({ abi: escrowAbi, functionName: "settleExact", args: [item] });
      const receipt = await onLane(lane, async () => {
        await simulate(lane, p.escrow, data, EXACT_GAS);
        const mined = await sendAlone(lane, p.escrow, data, EXACT_GAS);
        if (mined.status !== "success") await refuseMinedRevert(lane, p.escrow, data, EXACT_GAS, mined);
        return mined;
      });
      const outcome = readDebitOutcomes(receipt, p.escrow).get(outcomeKey(item.from, item.nonce));
      if (!outcome) throw new Error(`no debit logged for exact nonce ${item.nonce}`);
      p.onBatch?.(bookOf(receipt, 1, [outcome]));
      return outcome;
    },

    /** Records a strike for the buyer's failed call (payment nonce `nonce`) on the registry; resolves with the transaction hash. */
    async recordStrike(resourceId: Hex, call: { buyer: Address; nonce: Hex }, reason: string): Promise<Hex> {
      const data = encodeFunctionData({
        abi: registryAbi,
        functionName: "recordStrike",
        args: [resourceId, call.buyer, call.nonce, reason],
      });
      if (!holds(lanes.strike))
        throw new ChainUnavailableError("no_signer: another instance holds the facilitator signer's lease");
      return onLane(lanes.strike, async () => {
        await simulate(lanes.strike, p.registry, data, STRIKE_GAS);
        const receipt = await sendAlone(lanes.strike, p.registry, data, STRIKE_GAS);
        if (receipt.status !== "success") await refuseMinedRevert(lanes.strike, p.registry, data, STRIKE_GAS, receipt);
        return receipt.transactionHash;
      });
    },

    /** Whether this instance may send strikes now (it holds the facilitator signer, or signers are not leased). */
    holdsStrikeSigner: (): boolean => holds(lanes.strike),

    /** The signers this instance may send from now. */
    heldSigners: (): Address[] =>
      lanes
        .all()
        .filter(holds)
        .map((lane) => lane.account.address),

    /** Takes this instance's first signer leases and keeps them renewed (no-op unless signers are leased). */
    startLeasing: async (): Promise<void> => leasing?.start(),

    /**
     * Stops sending and gives the signer leases back (after `drain`); `release` false leaves them to expire, as a dead
     * instance's do (tests).
     */
    stopLeasing: async (release = true): Promise<void> => leasing?.stop(release),

    /** Signers paused because the node refused their sends for insufficient funds, until their balance covers them. */
    unfundedSigners: (): Address[] => [...unfunded.keys()],

    /**
     * Throws RelayerCannotPayError when new debits would not be paid for: the chain's fee is above the cap, or no
     * debit signer holds one full batch's gas at the current fee.
     */
    async ensureCanPay(): Promise<void> {
      const { maxFeePerGas, minimumBalance, belowMinimum } = await funding();
      if (p.maxFeePerGas !== undefined && maxFeePerGas > p.maxFeePerGas)
        throw new RelayerCannotPayError(
          "fee_above_cap",
          `the chain's fee (${maxFeePerGas} wei per gas) is above the facilitator's cap (${p.maxFeePerGas}); retry later`,
        );
      if (belowMinimum.length === debitSigners.length)
        throw new RelayerCannotPayError(
          "relayer_unfunded",
          `the relayer cannot pay for a batch of debits (it needs ${minimumBalance} wei of gas); retry later`,
        );
    },

    /**
     * The relayer's funding at the current fee, for /ready: the fee, whether it is above the cap, the least balance a
     * signer must hold (one full batch's gas at that fee) and the debit signers holding less.
     */
    async funding() {
      const read = await funding();
      return { ...read, feeAboveCap: p.maxFeePerGas !== undefined && read.maxFeePerGas > p.maxFeePerGas };
    },

    /** Native gas balance of every signer, for /ready and /metrics. */
    /** Every signer's gas balance, and whether it sends debit batches (the strike key alone sends only strikes). */
    gasBalances(): Promise<{ address: Address; balance: bigint; debits: boolean }[]> {
      return Promise.all(
        lanes.all().map(async (lane) => ({
          address: lane.account.address,
          balance: await publicClient.getBalance({ address: lane.account.address }),
          debits: debitSigners.includes(lane.account.address),
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
