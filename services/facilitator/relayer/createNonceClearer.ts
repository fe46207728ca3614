import { setTimeout as sleep } from "node:timers/promises";
import type { Address, Hex, LocalAccount } from "viem";
import type { ReceiptWatcher } from "./createReceiptWatcher.ts";
import type { BroadcastParameters, Fees, SentTransaction } from "./sendTransaction.ts";
import {
  broadcastTransaction,
  CANCEL_GAS,
  ChainUnavailableError,
  raiseFees,
  TransactionRefusedError,
} from "./sendTransaction.ts";

export type NonceClearerParameters = Omit<BroadcastParameters, "account"> & {
  receipts: ReceiptWatcher;
  /** Current fees (the relayer's short-lived cache of the node's estimate). */
  fees: () => Promise<Fees>;
  /** How long a transaction of another run is given to be mined before it is cancelled (RECEIPT_TIMEOUT_MS). */
  receiptTimeoutMs: number;
  /** How often the signer's mined count is read while waiting (default 500 ms). */
  pollMs?: number;
  /** Called with every cancel broadcast. */
  onCancel?: (cancel: SentTransaction) => void;
  /** Called when a clearing failed (it is tried again at the lane's next resync). */
  onFailure?: (signer: Address, error: unknown) => void;
};

/**
 * Clears the nonces a signer's lane found pending without a transaction of this process at them (a transaction sent
 * before a crash, or given up, or a nonce the node lost): each is given `receiptTimeoutMs` to be mined, then gets a
 * cancel (a zero-value transfer from the signer to itself, fees a quarter above the current estimate, raised while a
 * node answers "underpriced", never above the cap), so that the transactions sent after it are not stuck behind it. A transaction of an
 * earlier run that is mined instead of its cancel did what it carried; one cancelled did nothing, and the retrier
 * sends its debits again (it looks on chain for each debit first). One clearing per nonce at a time.
 * @example const clear = createNonceClearer(p); createNonceManager(publicClient, address, (a, n) => clear(account, n))
 */
export function createNonceClearer(p: NonceClearerParameters) {
  const clearing = new Set<string>();

  async function minedCount(address: Address): Promise<number> {
    return p.publicClient.getTransactionCount({ address, blockTag: "latest" });
  }

  async function clear(account: LocalAccount, nonces: number[]): Promise<void> {
    const address = account.address;
    const deadline = Date.now() + p.receiptTimeoutMs;
    const last = Math.max(...nonces);
    let mined = await minedCount(address);
    while (mined <= last && Date.now() < deadline) {
      await sleep(p.pollMs ?? 500);
      mined = await minedCount(address);
    }
    const cancels: Hex[] = [];
    for (const nonce of nonces) {
      if (nonce < mined) continue;
      const estimate = await p.fees();
      const fees = raiseFees(estimate, p.maxFeePerGas) ?? estimate;
      if (p.maxFeePerGas !== undefined && fees.maxFeePerGas > p.maxFeePerGas)
        throw new ChainUnavailableError(`fee_above_cap: no cancel at nonce ${nonce} while the fee is above the cap`);
      const self = { to: address, data: "0x" as Hex, gas: CANCEL_GAS };
      let hash: Hex;
      try {
        ({ hash } = await broadcastTransaction({ ...p, account }, nonce, self, fees));
      } catch (error) {
        // Mined meanwhile: nothing to clear at this nonce.
        if (error instanceof TransactionRefusedError && error.kind === "nonce_too_low") continue;
        throw error;
      }
      p.onCancel?.({ signer: address, nonce, transaction: hash });
      cancels.push(hash);
    }
    // Held until mined or timed out, so that a resync meanwhile sends no second cancel at the same nonces.
    await Promise.all(cancels.map((hash) => p.receipts.firstReceipt([hash], p.receiptTimeoutMs)));
  }

  /** Clears `nonces` of `account` in the background; a failure is left to the next resync, which finds them again. */
  return (account: LocalAccount, nonces: number[]): Promise<void> => {
    const fresh = nonces.filter((nonce) => !clearing.has(`${account.address}:${nonce}`));
    if (fresh.length === 0) return Promise.resolve();
    for (const nonce of fresh) clearing.add(`${account.address}:${nonce}`);
    return clear(account, fresh)
      .catch((error) => p.onFailure?.(account.address, error))
      .finally(() => {
        for (const nonce of fresh) clearing.delete(`${account.address}:${nonce}`);
      });
  };
}
