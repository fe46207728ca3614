import { setTimeout as sleep } from "node:timers/promises";
import type { Address, Hex, LocalAccount, PublicClient, TransactionReceipt } from "viem";
import { defined } from "../../protocol/defined.ts";
import { BaseError } from "../../protocol/errors.ts";
import { keccak256Hex } from "../../protocol/keccak.ts";
import type { RpcErrorKind } from "./classifyRpcError.ts";
import { classifyRpcError, rpcErrorReason } from "./classifyRpcError.ts";
import type { ReceiptWatcher } from "./createReceiptWatcher.ts";
import type { NonceManager } from "./nonceManager.ts";

export type SendTransactionParameters = {
  publicClient: PublicClient;
  /** The signer: transactions are signed locally and sent raw, so a send is one RPC call. */
  account: LocalAccount;
  nonces: NonceManager;
  /** Where the receipt is awaited: the relayer's one watcher, which asks for every transaction's once per block. */
  receipts: ReceiptWatcher;
  to: Address;
  data: Hex;
  gas: bigint;
  /** How long to wait for a receipt before replacing the transaction with a fee bump. */
  receiptTimeoutMs: number;
  /** How many fee-bumped replacements to try before giving up (the debit stays pending, not lost). */
  replacements?: number;
  /** Current fees; the relayer passes a short-lived cache of the node's estimate. */
  fees?: () => Promise<Fees>;
  /**
   * Highest `maxFeePerGas` (wei) a replacement or a cancel may carry (MAX_FEE_PER_GAS); one the cap keeps below what a
   * node takes as a replacement is not sent. Unset: no cap.
   */
  maxFeePerGas?: bigint | undefined;
  /** Called with every fee-bumped replacement broadcast. */
  onReplacement?: (replacement: SentTransaction) => void;
  /** Called with the cancel broadcast once the replacements were not mined. */
  onCancel?: (cancel: SentTransaction) => void;
  /** Called once the first broadcast has returned (or failed): the lane may cut its next batch. */
  onBroadcast?: () => void;
  /** Called with every RPC fault met on a send, whether it was then cured or not. */
  onFault?: (fault: RpcFault) => void;
  /** How many times a rate-limited send is resent (default 6), after 250 ms doubling up to 4 s. */
  rateLimitRetries?: number;
  /** Waits between resends; tests pass a shorter one. */
  backoffMs?: (attempt: number) => number;
};

/** Tries per send for faults cured by a fresh nonce or higher fees before the send is given up. */
const FIX_ATTEMPTS = 3;

/** The gas of a cancel: a zero-value transfer from the signer to itself, with no data. */
export const CANCEL_GAS = 21_000n;

export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

/** A transaction broadcast, as the relayer logs it: the signer, its nonce and its hash, never its bytes. */
export type SentTransaction = { signer: Address; nonce: number; transaction: Hex };

/** What a transaction does: the call, and its gas. */
export type TransactionCall = { to: Address; data: Hex; gas: bigint };

/** A tenth above `fee`, rounded up: the least a node takes for a replacement of a transaction that pays `fee`. */
const replacing = (fee: bigint) => (fee * 110n + 99n) / 100n;

/**
 * The fees of a replacement of a transaction that pays `fees`: both raised by a quarter, `maxFeePerGas` held to
 * `cap`. Null when the cap keeps them under what a node takes as a replacement (a tenth above each).
 * @example const next = raiseFees({ maxFeePerGas: 100n, maxPriorityFeePerGas: 10n }) // { 126n, 13n }
 */
export function raiseFees(fees: Fees, cap?: bigint): Fees | null {
  let maxFeePerGas = (fees.maxFeePerGas * 125n) / 100n + 1n;
  let maxPriorityFeePerGas = (fees.maxPriorityFeePerGas * 125n) / 100n + 1n;
  if (cap !== undefined && maxFeePerGas > cap) maxFeePerGas = cap;
  if (maxPriorityFeePerGas > maxFeePerGas) maxPriorityFeePerGas = maxFeePerGas;
  if (maxFeePerGas < replacing(fees.maxFeePerGas) || maxPriorityFeePerGas < replacing(fees.maxPriorityFeePerGas))
    return null;
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/**
 * A transaction that could not be confirmed: the chain was unreachable, rate-limited us past the backoff, the signer
 * could not pay the gas, or it stayed stuck. Worth retrying; `kind` says which RPC fault, `transaction` its hash.
 */
export class ChainUnavailableError extends BaseError {
  override name = "ChainUnavailableError";
  readonly kind: RpcErrorKind | undefined;
  readonly transaction: Hex | undefined;
  constructor(message: string | undefined, fault: { kind?: RpcErrorKind; transaction?: Hex } = {}) {
    super(message ?? "");
    this.kind = fault.kind;
    this.transaction = fault.transaction;
  }
}

/**
 * A send the node refused for a reason retrying the same transaction will not cure (`reverted`, `rejected`, or a
 * nonce or fee fault that persisted): the caller simulates to tell a payment that reverts from a passing refusal.
 */
export class TransactionRefusedError extends BaseError {
  override name = "TransactionRefusedError";
  readonly kind: RpcErrorKind;
  readonly transaction: Hex;
  constructor(kind: RpcErrorKind, transaction: Hex, reason: string) {
    super(`${kind} sending ${transaction}: ${reason}`);
    this.kind = kind;
    this.transaction = transaction;
  }
}

/**
 * A transaction cancelled: it was not mined through its replacements, and a cancel (a zero-value transfer from the
 * signer to itself at its nonce, paying more) was mined in its place. Nothing it carried was done, and its nonce is
 * used: what it carried may be sent again. `transaction` is the original's hash, `cancel` the cancel's.
 */
export class TransactionCancelledError extends ChainUnavailableError {
  readonly cancel: Hex;
  readonly nonce: number;
  constructor(nonce: number, transaction: Hex, cancel: Hex) {
    super(`transaction with nonce ${nonce} was not mined after replacements; cancel ${cancel} was mined instead`, {
      transaction,
    });
    this.cancel = cancel;
    this.nonce = nonce;
  }
}

/** One RPC fault met while sending, as the relayer logs it: its kind, the transaction's hash, never its bytes. */
export type RpcFault = { kind: RpcErrorKind; transaction: Hex; signer: Address; nonce: number; reason: string };

/** What sending or simulating a transaction throws: retry the first, never the second. */
export type SendTransactionErrorType = ChainUnavailableError | TransactionRefusedError | TransactionRevertedError;

/**
 * A transaction the chain refuses for good: simulating it reverts with `data` (an ABI-encoded custom error, or
 * empty), so sending it again would revert again. Never retried; `reason` names the error where it decodes.
 */
export class TransactionRevertedError extends BaseError {
  override name = "TransactionRevertedError";
  readonly data: Hex;
  readonly reason: string;
  constructor(reason: string, data: Hex) {
    super(`the chain refuses the transaction: ${reason}`);
    this.reason = reason;
    this.data = data;
  }
}

/** What broadcasting needs: the node, the signer, and how faults are met. */
export type BroadcastParameters = Pick<
  SendTransactionParameters,
  "publicClient" | "account" | "maxFeePerGas" | "onFault" | "rateLimitRetries" | "backoffMs"
>;

/**
 * Signs `call` at `nonce` with `fees` and sends it raw, resending the same bytes after a rate limit and re-signing
 * with raised fees after an "underpriced"; any other fault is thrown classified (never with the transaction's bytes
 * in its message). Returns the hash and the fees it was sent with.
 * @example const { hash, fees } = await broadcastTransaction(p, 7, { to, data, gas }, await estimate())
 */
export async function broadcastTransaction(
  p: BroadcastParameters,
  nonce: number,
  call: TransactionCall,
  fees: Fees,
): Promise<{ hash: Hex; fees: Fees }> {
  const chainId = defined(p.publicClient.chain, "the public client's chain").id;
  const backoffMs = p.backoffMs ?? ((attempt: number) => Math.min(250 * 2 ** attempt, 4_000));
  let rateLimited = 0;
  let underpriced = 0;
  for (;;) {
    const serializedTransaction = await p.account.signTransaction({
      type: "eip1559",
      chainId,
      ...call,
      nonce,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    // Its hash in WebAssembly: a batch's signed bytes run to tens of kilobytes, which viem's keccak hashes in JavaScript.
    const hash = keccak256Hex(Buffer.from(serializedTransaction.slice(2), "hex"));
    let raised: Fees | null = null;
    for (;;) {
      try {
        await p.publicClient.sendRawTransaction({ serializedTransaction });
        return { hash, fees };
      } catch (error) {
        const kind = classifyRpcError(error);
        const reason = rpcErrorReason(error);
        p.onFault?.({ kind, transaction: hash, signer: p.account.address, nonce, reason });
        if (kind === "rate_limited" && rateLimited < (p.rateLimitRetries ?? 6)) {
          await sleep(backoffMs(rateLimited++));
          continue;
        }
        if (kind === "underpriced" && underpriced++ < FIX_ATTEMPTS) raised = raiseFees(fees, p.maxFeePerGas);
        if (raised) break;
        if (kind === "rate_limited" || kind === "transport" || kind === "insufficient_funds")
          throw new ChainUnavailableError(`${kind} sending ${hash}: ${reason}`, { kind, transaction: hash });
        throw new TransactionRefusedError(kind, hash, reason);
      }
    }
    fees = raised;
  }
}

/**
 * Sends a transaction on the signer's nonce lane and waits for its receipt; if it is not mined in time it is
 * replaced (same nonce, fees raised by a quarter) and whichever version is mined is returned. If none is mined after
 * `replacements`, a cancel (a zero-value transfer from the signer to itself, paying more) is sent at the same nonce:
 * the original mined after all is returned, a cancel mined throws TransactionCancelledError (the nonce is used,
 * nothing of the call done: it may be sent again), and neither mined throws ChainUnavailableError. The lane is held
 * only while the nonce is assigned and the transaction broadcast, so transactions of one signer pipeline.
 * @example const receipt = await sendTransaction({ publicClient, account, nonces, receipts, to, data, gas, receiptTimeoutMs })
 */
export async function sendTransaction(p: SendTransactionParameters): Promise<TransactionReceipt> {
  let fees: Fees;
  try {
    fees = await (p.fees ?? (() => p.publicClient.estimateFeesPerGas()))();
  } catch (error) {
    p.onBroadcast?.();
    throw error;
  }
  const call: TransactionCall = { to: p.to, data: p.data, gas: p.gas };
  let sent: { nonce: number; hash: Hex } | undefined;
  try {
    for (let attempt = 0; !sent; attempt++) {
      try {
        sent = await p.nonces.withNonce(async (nonce) => {
          const broadcast = await broadcastTransaction(p, nonce, call, fees);
          fees = broadcast.fees;
          return { nonce, hash: broadcast.hash };
        });
      } catch (error) {
        // withNonce forgot its counter: the next try reads the chain's pending count again.
        if (!(error instanceof TransactionRefusedError && error.kind === "nonce_too_low" && attempt < FIX_ATTEMPTS))
          throw error;
      }
    }
  } finally {
    p.onBroadcast?.();
  }
  const { nonce } = sent;
  try {
    return await awaitMined(p, { nonce, hash: sent.hash, call, fees });
  } finally {
    p.nonces.release(nonce);
  }
}

/** Waits for a broadcast transaction, replacing it while it is not mined, then cancelling it (sendTransaction). */
async function awaitMined(
  p: SendTransactionParameters,
  sent: { nonce: number; hash: Hex; call: TransactionCall; fees: Fees },
): Promise<TransactionReceipt> {
  const { nonce, call } = sent;
  let fees = sent.fees;
  const hashes: Hex[] = [sent.hash];
  for (let attempt = 0; ; attempt++) {
    const receipt = await p.receipts.firstReceipt(hashes, p.receiptTimeoutMs);
    if (receipt) return receipt;
    if (attempt >= (p.replacements ?? 2)) break;
    const raised = raiseFees(fees, p.maxFeePerGas);
    if (!raised) continue;
    try {
      const replacement = await broadcastTransaction(p, nonce, call, raised);
      fees = replacement.fees;
      hashes.push(replacement.hash);
      p.onReplacement?.({ signer: p.account.address, nonce, transaction: replacement.hash });
    } catch {
      // The original may have been mined meanwhile ("nonce too low"): keep waiting for the hashes we have.
    }
  }
  const cancelFees = raiseFees(fees, p.maxFeePerGas);
  if (cancelFees) {
    let cancel: Hex | undefined;
    try {
      const self = { to: p.account.address, data: "0x" as Hex, gas: CANCEL_GAS };
      cancel = (await broadcastTransaction(p, nonce, self, cancelFees)).hash;
      p.onCancel?.({ signer: p.account.address, nonce, transaction: cancel });
    } catch {
      // Refused (the original mined meanwhile, or the fees): whichever version is mined now is what counts.
    }
    const receipt = await p.receipts.firstReceipt(cancel ? [...hashes, cancel] : hashes, p.receiptTimeoutMs);
    if (receipt && cancel && receipt.transactionHash === cancel)
      throw new TransactionCancelledError(nonce, sent.hash, cancel);
    if (receipt) return receipt;
  }
  p.nonces.resync();
  throw new ChainUnavailableError(`transaction with nonce ${nonce} was not mined after replacements`, {
    transaction: sent.hash,
  });
}
