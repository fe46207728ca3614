import type { Address, Hex, LocalAccount, PublicClient, TransactionReceipt } from "viem";
import { defined } from "../../protocol/defined.ts";
import { BaseError } from "../../protocol/errors.ts";
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
  /** Called once the first broadcast has returned (or failed): the lane may cut its next batch. */
  onBroadcast?: () => void;
};

export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

/** A transaction that could not be confirmed: the chain was unreachable or it stayed stuck. Worth retrying. */
export class ChainUnavailableError extends BaseError {
  override name = "ChainUnavailableError";
  constructor(message: string | undefined) {
    super(message ?? "");
  }
}

/** What sending or simulating a transaction throws: retry the first, never the second. */
export type SendTransactionErrorType = ChainUnavailableError | TransactionRevertedError;

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

/**
 * Sends a transaction on the signer's nonce lane and waits for its receipt; if it is not mined in time it is
 * replaced (same nonce, fees raised by a quarter) and whichever version is mined is returned. The lane is held
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
  let { maxFeePerGas, maxPriorityFeePerGas } = fees;
  const chainId = defined(p.publicClient.chain, "the public client's chain").id;
  const broadcast = async (nonce: number) =>
    p.publicClient.sendRawTransaction({
      serializedTransaction: await p.account.signTransaction({
        type: "eip1559",
        chainId,
        to: p.to,
        data: p.data,
        gas: p.gas,
        nonce,
        maxFeePerGas,
        maxPriorityFeePerGas,
      }),
    });
  const { nonce, hash } = await p.nonces
    .withNonce(async (nonce) => ({ nonce, hash: await broadcast(nonce) }))
    .finally(() => p.onBroadcast?.());
  const hashes: Hex[] = [hash];
  for (let attempt = 0; ; attempt++) {
    const receipt = await p.receipts.firstReceipt(hashes, p.receiptTimeoutMs);
    if (receipt) return receipt;
    if (attempt >= (p.replacements ?? 2)) break;
    maxFeePerGas = (maxFeePerGas * 125n) / 100n + 1n;
    maxPriorityFeePerGas = (maxPriorityFeePerGas * 125n) / 100n + 1n;
    try {
      hashes.push(await broadcast(nonce));
    } catch {
      // The original may have been mined meanwhile ("nonce too low"): keep waiting for the hashes we have.
    }
  }
  p.nonces.resync();
  throw new ChainUnavailableError(`transaction with nonce ${nonce} was not mined after replacements`);
}
