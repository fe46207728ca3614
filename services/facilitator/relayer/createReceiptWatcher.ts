import type { Hex, PublicClient, TransactionReceipt } from "viem";
import { BLOCK_TIME_MS } from "../../protocol/constants.ts";

/** How often the watcher asks for the chain's head while a receipt is awaited: a fifth of the test network's block. */
export const RECEIPT_POLL_MS = BLOCK_TIME_MS / 5;

/**
 * Longest a transaction goes without a look while the head the node reports stands still: two blocks. An endpoint
 * behind a load balancer can answer the head from a backend that lags the one answering receipts.
 */
export const RECEIPT_STALE_MS = 2 * BLOCK_TIME_MS;

export type ReceiptWatcherOptions = { pollMs?: number; staleMs?: number };

type Waiter = {
  hashes: readonly Hex[];
  deadline: number;
  /** The head at this waiter's last look (null: not looked at any head the watcher knows). */
  lookedAt: bigint | null;
  /** When it was last looked for (ms). */
  lookedAtMs: number;
  resolve: (receipt: TransactionReceipt | null) => void;
  reject: (error: unknown) => void;
};

/** The first receipt among `hashes` (the versions of one transaction), or null while none is mined. */
async function receiptOf(client: PublicClient, hashes: readonly Hex[]): Promise<TransactionReceipt | null> {
  for (const hash of hashes) {
    const receipt = await client.getTransactionReceipt({ hash }).catch((error: { name?: string }) => {
      if (error.name === "TransactionReceiptNotFoundError") return null;
      throw error;
    });
    if (receipt) return receipt;
  }
  return null;
}

/**
 * Waits for the receipts of the relayer's transactions, all of them paced by the chain's blocks: each awaited
 * transaction is looked for once when it is awaited (a chain that mines each transaction has it already), then once per
 * new head, which one `eth_blockNumber` every `pollMs` finds for every transaction awaited at the time, and at least
 * every `staleMs` whatever the head (a head that stands still may be a lagging backend's). Polling each transaction on
 * its own backoff asked the node for about six receipts per transaction; a relayer sending eight transactions a second
 * on a public RPC endpoint spent its rate limit on them.
 * @example const watcher = createReceiptWatcher(publicClient); const receipt = await watcher.firstReceipt([hash], 30_000)
 */
export function createReceiptWatcher(
  client: PublicClient,
  { pollMs = RECEIPT_POLL_MS, staleMs = RECEIPT_STALE_MS }: ReceiptWatcherOptions = {},
) {
  const waiting = new Set<Waiter>();
  let running = false;
  /** The last head the watcher saw. */
  let head: bigint | null = null;

  const settle = (w: Waiter, outcome: () => void) => {
    waiting.delete(w);
    outcome();
  };

  async function look(w: Waiter, at: bigint): Promise<void> {
    w.lookedAt = at;
    w.lookedAtMs = Date.now();
    try {
      const receipt = await receiptOf(client, w.hashes);
      if (receipt) settle(w, () => w.resolve(receipt));
    } catch (error) {
      settle(w, () => w.reject(error));
    }
  }

  async function watch(): Promise<void> {
    running = true;
    try {
      while (waiting.size > 0) {
        await new Promise((resolve) => setTimeout(resolve, pollMs));
        let at: bigint;
        try {
          at = await client.getBlockNumber({ cacheTime: 0 });
        } catch (error) {
          for (const w of [...waiting]) settle(w, () => w.reject(error));
          continue;
        }
        head = at;
        const due = (w: Waiter) => w.lookedAt !== at || Date.now() - w.lookedAtMs >= staleMs;
        await Promise.all([...waiting].filter(due).map((w) => look(w, at)));
        const now = Date.now();
        for (const w of [...waiting]) if (now >= w.deadline) settle(w, () => w.resolve(null));
      }
    } finally {
      running = false;
    }
  }

  return {
    /**
     * The first receipt among `hashes` (a transaction and its replacements) mined within `timeoutMs`, or null;
     * rejects with the node's error when it cannot be asked.
     */
    async firstReceipt(hashes: readonly Hex[], timeoutMs: number): Promise<TransactionReceipt | null> {
      const deadline = Date.now() + timeoutMs;
      // Every block up to the last head seen was mined before this first look, which covers it.
      const seen = head;
      const now = await receiptOf(client, hashes);
      if (now) return now;
      return new Promise((resolve, reject) => {
        waiting.add({ hashes: [...hashes], deadline, lookedAt: seen, lookedAtMs: Date.now(), resolve, reject });
        if (!running) void watch();
      });
    },
    /** How many transactions are awaited now. */
    get waiting(): number {
      return waiting.size;
    },
  };
}

/** A relayer's receipt watcher. */
export type ReceiptWatcher = ReturnType<typeof createReceiptWatcher>;
