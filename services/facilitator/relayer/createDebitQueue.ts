import { BATCH_BASE_GAS, itemGas, MAX_BATCH_GAS } from "./batchGas.ts";
import type { Lane } from "./createSignerLanes.ts";
import type { DebitItem } from "./debitItem.ts";
import type { DebitOutcome } from "./debitOutcome.ts";
import type { HoldVerdict, SendReason } from "./holdPolicy.ts";
import { ChainUnavailableError } from "./sendTransaction.ts";

/**
 * A queued debit; `alone` once a batch it was in reverted: it then goes out in a batch of its own. `cancelled`: how
 * many batches it was in were cancelled (requeue).
 */
export type Pending = {
  item: DebitItem;
  /** A committed debit nobody awaits the mining of: it may be held until its batch pays (holdPolicy.ts). */
  mayHold?: boolean;
  /** When it was queued (seconds, the queue's clock). */
  queuedAt?: number;
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
  /**
   * Sends one batch on `lane`, for `reason`; calls `onBroadcast` once it is broadcast, settles each item's promise
   * when mined.
   */
  sendBatch: (lane: Lane, batch: Pending[], onBroadcast: () => void, reason: SendReason) => Promise<void>;
  /**
   * Holding (committed settlement): whether the head batch goes out now given everything queued (holdPolicy.ts), and
   * a fresh read of what it decides on (the fee), made before each look at held debits. Unset: nothing is held.
   */
  hold?: {
    verdict: (batch: readonly HeldPending[], queued: readonly HeldPending[]) => HoldVerdict;
    refresh: () => Promise<unknown>;
  };
  /** Now, in seconds (the facilitator's clock). */
  now?: () => number;
};

/** A queued debit as holding sees it: `mayHold` false for one awaited, or back from a failed or cancelled batch. */
export type HeldPending = Pending & { mayHold: boolean; queuedAt: number };

/** A held debit handed back at stop, unsent: its reservation stays settling and the retrier of the next start sends it. */
export class HeldDebitHandedBackError extends ChainUnavailableError {
  override name = "HeldDebitHandedBackError";
}

/** The key of a debit in the queue: one buyer's nonce is debited once. */
const keyOf = (item: DebitItem) =>
  `${item.authorization.buyer.toLowerCase()}:${item.authorization.nonce.toLowerCase()}`;

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
  /** The outcome of every debit queued or in flight, by buyer and nonce: a second push of one joins the first. */
  const outcomes = new Map<string, Promise<DebitOutcome>>();
  const now = p.now ?? (() => Date.now() / 1000);

  /** Each queued debit as holding sees it. */
  const asHeld = (q: Pending): HeldPending => ({
    ...q,
    mayHold: p.hold !== undefined && (q.mayHold ?? false) && !q.alone && !q.cancelled,
    queuedAt: q.queuedAt ?? now(),
  });

  /** Looks at held debits again after a fresh read of the fee. */
  function recheck(): void {
    timer = null;
    void (p.hold?.refresh() ?? Promise.resolve()).catch(() => undefined).finally(flush);
  }

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    while (queue.length > 0) {
      const wait = lastCutAt + p.minBatchIntervalMs - Date.now();
      if (wait > 0 && !draining && queue.length < p.batchMaxItems) {
        timer = setTimeout(flush, wait);
        return;
      }
      let reason: SendReason = "urgent";
      // Once draining (a stop), what is still queued or comes after the held debits were handed back goes out.
      if (p.hold && !draining) {
        const queued = queue.map(asHeld);
        const verdict = p.hold.verdict(queued.slice(0, headBatchSize()), queued);
        if (!verdict.send) {
          timer = setTimeout(recheck, verdict.recheckMs);
          return;
        }
        reason = verdict.reason;
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
      const run = p.sendBatch(lane, batch, broadcast, reason).finally(() => {
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
    const batch = queue.slice(0, headBatchSize());
    queue = queue.slice(batch.length);
    return batch;
  }

  /** How many items from the head of the queue the next batch takes. */
  function headBatchSize(): number {
    let size = 0;
    let gas = BATCH_BASE_GAS;
    for (const next of queue) {
      const first = queue[0];
      if (size > 0 && (first?.alone || next.alone || size >= p.batchMaxItems)) break;
      if (size > 0 && gas + itemGas(next.item) > MAX_BATCH_GAS) break;
      size++;
      gas += itemGas(next.item);
    }
    return size;
  }

  /** The debits holding would keep now (none while something cannot wait), taken out of the queue. */
  function takeHeld(): Pending[] {
    if (!p.hold || queue.length === 0) return [];
    const queued = queue.map(asHeld);
    if (p.hold.verdict(queued.slice(0, headBatchSize()), queued).send) return [];
    const held = queue;
    queue = [];
    return held;
  }

  return {
    /**
     * Queues a debit for the next batch; resolves with its outcome once the batch is mined. `mayHold`: a committed
     * debit nobody awaits, which holding may keep until its batch pays. A debit already queued or in flight (the
     * retrier driving one this instance holds) gets that debit's outcome: it is sent once.
     */
    push(item: DebitItem, options: { mayHold?: boolean } = {}): Promise<DebitOutcome> {
      const key = keyOf(item);
      const known = outcomes.get(key);
      if (known !== undefined) return known;
      const outcome = new Promise<DebitOutcome>((resolve, reject) => {
        queue.push({ item, resolve, reject, mayHold: options.mayHold ?? false, queuedAt: now() });
        if (queue.length >= p.batchMaxItems) flush();
        else if (p.hold && !options.mayHold) {
          // A debit someone awaits does not wait for the next look at held debits (up to HOLD_RECHECK_MS).
          if (timer) clearTimeout(timer);
          timer = setTimeout(flush, p.batchWindowMs);
        } else timer ??= setTimeout(flush, p.batchWindowMs);
      });
      outcomes.set(key, outcome);
      const forget = () => {
        if (outcomes.get(key) === outcome) outcomes.delete(key);
      };
      outcome.then(forget, forget);
      return outcome;
    },

    /** Whether a debit of this buyer and nonce is queued or in flight here. */
    has(buyer: string, nonce: string): boolean {
      return outcomes.has(`${buyer.toLowerCase()}:${nonce.toLowerCase()}`);
    },

    /** Whether a debit of this buyer and nonce is queued now and may be held. */
    holds(buyer: string, nonce: string): boolean {
      const key = `${buyer.toLowerCase()}:${nonce.toLowerCase()}`;
      return queue.some((q) => keyOf(q.item) === key && asHeld(q).mayHold);
    },

    /** The debits queued now that may be held (for /metrics and /results). */
    held(): HeldPending[] {
      return queue.map(asHeld).filter((q) => q.mayHold);
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

    /**
     * Sends whatever is queued and waits for every batch in flight, including batches cut meanwhile. Debits holding
     * keeps are handed back unsent (HeldDebitHandedBackError): a stop forces no loss, and their reservations, which
     * stay settling, are sent by the retrier of the next start, or of another instance.
     */
    async drain(): Promise<void> {
      for (const held of takeHeld())
        held.reject(new HeldDebitHandedBackError("a held debit was handed back at stop; the retrier sends it"));
      draining = true;
      flush();
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
