import { BATCH_BASE_GAS, itemGas, MAX_BATCH_GAS } from "./batchGas.ts";
import type { Lane } from "./createSignerLanes.ts";
import type { DebitItem } from "./debitItem.ts";
import type { DebitOutcome } from "./debitOutcome.ts";

/**
 * A queued debit; `alone` once a batch it was in reverted: it then goes out in a batch of its own. `cancelled`: how
 * many batches it was in were cancelled (requeue).
 */
export type Pending = {
  item: DebitItem;
  resolve: (o: DebitOutcome) => void;
  reject: (e: unknown) => void;
  alone?: boolean;
  cancelled?: number;
};

export type DebitQueueParameters = {
  batchWindowMs: number;
  batchMaxItems: number;
  /** Least time between two batches (ms); a batch is then cut early only once `batchMaxItems` are queued. */
  minBatchIntervalMs: number;
  /** A debit lane that is not broadcasting, if any. */
  idleLane: () => Lane | undefined;
  /** Sends one batch on `lane`; calls `onBroadcast` once it is broadcast, settles each item's promise when mined. */
  sendBatch: (lane: Lane, batch: Pending[], onBroadcast: () => void) => Promise<void>;
};

/**
 * The relayer's queue: debits arriving within `batchWindowMs` (or `batchMaxItems`) go out as one batch on an idle
 * lane. A lane cuts its next batch only once its previous one has been broadcast, so under load whatever arrived
 * meanwhile goes out together (bigger batches, fewer transactions) while receipts are awaited in parallel.
 * @example const queue = createDebitQueue({ ...p, idleLane, sendBatch }); const outcome = await queue.push(item)
 */
export function createDebitQueue(p: DebitQueueParameters) {
  let queue: Pending[] = [];
  let timer: NodeJS.Timeout | null = null;
  let lastCutAt = 0;
  let draining = false;
  const inFlight = new Set<Promise<void>>();

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    while (queue.length > 0) {
      const wait = lastCutAt + p.minBatchIntervalMs - Date.now();
      if (wait > 0 && !draining && queue.length < p.batchMaxItems) {
        timer = setTimeout(flush, wait);
        return;
      }
      const lane = p.idleLane();
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
      const run = p.sendBatch(lane, batch, broadcast).finally(() => {
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

  return {
    /** Queues a debit for the next batch; resolves with its outcome once the batch is mined. */
    push(item: DebitItem): Promise<DebitOutcome> {
      return new Promise<DebitOutcome>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (queue.length >= p.batchMaxItems) flush();
        else timer ??= setTimeout(flush, p.batchWindowMs);
      });
    },

    /** No item can sink the others: after a failed batch each goes out again on its own, and fails only for itself. */
    isolate(batch: Pending[]): void {
      queue = [...batch.map((b) => ({ ...b, alone: true })), ...queue];
      flush();
    },

    /**
     * A batch whose transaction was cancelled (nothing of it done, its nonce used): its debits go back to the head of
     * the queue as they were, their promises still pending, and out in the next batch.
     */
    requeue(batch: Pending[]): void {
      queue = [...batch.map((b) => ({ ...b, cancelled: (b.cancelled ?? 0) + 1 })), ...queue];
      flush();
    },

    /** Cuts what is queued now if a lane is free (a signer's lease was just taken). */
    kick(): void {
      flush();
    },

    /** Sends whatever is queued and waits for every batch in flight, including batches cut meanwhile. */
    async drain(): Promise<void> {
      draining = true;
      flush();
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
