import type { Logger } from "pino";
import type { Address, Hex } from "viem";
import type { ChainReader } from "../chain.ts";
import type { Clock } from "../facilitatorContext.ts";
import type { Store } from "../store/createStore.ts";
import {
  advanceBook,
  bookedBuyers,
  correctBookedBuyer,
  markBookCurrent,
  nextBookedBuyers,
  readBookCursor,
  resetBook,
} from "../store/escrowBook.ts";
import { readEscrowEvents } from "./escrowEvents.ts";
import type { BookedBuyer } from "./foldEscrowEvents.ts";

export type EscrowBookParameters = {
  store: Store;
  chain: ChainReader;
  clock: Clock;
  logger: Logger;
  /** The escrow's first block: a new book replays its events from there. */
  startBlock: bigint;
  /** How long (seconds) the book may go without reaching the chain's head before verify refuses to trust it. */
  maxLagSeconds: number;
  /** Most blocks one `eth_getLogs` spans. */
  logRangeBlocks: number;
  /** How often the follower looks for new blocks (ms). */
  pollMs: number;
  /**
   * Least time (ms) between the starts of two catch-ups that verify asks for (`catchUpAfterNow`): a refusal asks for
   * one, and signing a refused payment costs nothing, so this bounds the chain reads any caller can cause.
   */
  catchUpGapMs: number;
  /** How often a few booked buyers are compared with the chain (ms), and how many each time. */
  auditMs: number;
  auditSize: number;
  /** Called for every buyer an audit found booked wrong (and corrected). */
  onCorrection?: (buyer: string) => void;
};

/** A nonce no buyer signs: what `buyerState` is asked about when only the account matters. */
const NO_NONCE: Hex = `0x${"0".repeat(64)}`;

/**
 * The facilitator's book of every buyer's escrow state, kept in its store from the escrow's own events, so that a
 * verify reserves against it in one statement with no chain read (reserve_call). The follower polls for new blocks,
 * applies each page of events in one transaction (several instances sharing a store take turns: a page applies only
 * right after the last), and marks the book current when it reaches the head; a book that has not been current for
 * `maxLagSeconds` is refused by verify, which first asks it to catch up (`catchUpAfterNow`, at most one start per
 * `catchUpGapMs` however many verifies ask). A new or re-pointed book replays
 * from `startBlock`, logging its progress; a chain behind the book (a restarted local chain) makes it replay.
 * An audit compares a few booked buyers in turn with the escrow's `buyerState` at the book's block and corrects, and
 * reports, any that differ.
 * @example const book = createEscrowBook({ store, chain, clock, logger, startBlock: 0n, maxLagSeconds: 60, ... })
 */
export function createEscrowBook(p: EscrowBookParameters) {
  const { escrow, token } = p.chain.addresses;
  const client = p.chain.publicClient;
  let following: Promise<void> | null = null;
  let followStartedAt = Number.NEGATIVE_INFINITY;
  let asked: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let audited = "";
  let auditedAt = Date.now();

  async function follow(): Promise<void> {
    for (let pages = 0; ; pages++) {
      const head = await client.getBlockNumber({ cacheTime: 0 });
      const cursor = await readBookCursor(p.store);
      if (!cursor || cursor.escrow !== escrow.toLowerCase() || head < cursor.syncedBlock) {
        if (cursor) p.logger.warn({ head, bookBlock: cursor.syncedBlock }, "escrow book replayed from the start");
        await resetBook(p.store, escrow, p.startBlock);
        continue;
      }
      const now = p.clock.now();
      if (cursor.syncedBlock === head) {
        if (cursor.currentAt < now) await markBookCurrent(p.store, head, now);
        return;
      }
      const from = cursor.syncedBlock + 1n;
      const span = BigInt(Math.max(1, p.logRangeBlocks));
      const to = head - from + 1n > span ? from + span - 1n : head;
      const events = await readEscrowEvents(client, { escrow, token, fromBlock: from, toBlock: to });
      const advanced = await advanceBook(p.store, { from, to, events, currentAt: to === head ? now : null });
      // A page that reached the head it was read against marked the book current: this catch-up is done (another
      // block mined since is the next poll's). A page another instance applied first: read where the book stands.
      if (advanced && to === head) return;
      if (pages > 0 && pages % 20 === 0) p.logger.info({ block: to, head }, "escrow book catching up");
    }
  }

  /** Brings the book to the chain's head (one run at a time; callers share it). */
  function catchUp(): Promise<void> {
    if (!following) {
      followStartedAt = Date.now();
      following = follow().finally(() => {
        following = null;
      });
    }
    return following;
  }

  /** Resolves once no run is under way and `catchUpGapMs` has passed since the last one started. */
  async function untilGapPassed(): Promise<void> {
    for (;;) {
      const wait = followStartedAt + p.catchUpGapMs - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      else if (following !== null) await following.catch(() => undefined);
      else return;
    }
  }

  /**
   * A catch-up that starts after this call, so it sees every block mined before the caller asked (a run already under
   * way may have read the head before that), shared by every caller until it starts, and started no sooner than
   * `catchUpGapMs` after any run before it (the follower's too): however many callers ask, they make the chain be
   * read at most once per gap.
   */
  function catchUpAfterNow(): Promise<void> {
    // `asked` is cleared in a callback, never before this assignment, even when no wait is due.
    asked ??= untilGapPassed().then(() => {
      asked = null;
      return catchUp();
    });
    return asked;
  }

  /** Compares the next `auditSize` booked buyers with the chain at the book's block; returns how many were wrong. */
  async function audit(): Promise<number> {
    const cursor = await readBookCursor(p.store);
    if (!cursor) return 0;
    const buyers = await nextBookedBuyers(p.store, audited, p.auditSize);
    audited = buyers.at(-1) ?? "";
    const booked = await bookedBuyers(p.store, buyers);
    if ((await readBookCursor(p.store))?.syncedBlock !== cursor.syncedBlock) return 0;
    let wrong = 0;
    for (const [buyer, mine] of booked) {
      const truth = await p.chain.buyerState(buyer as Address, NO_NONCE, cursor.syncedBlock);
      const theirs: BookedBuyer = { ...truth, changedBlock: mine.changedBlock };
      if (sameState(mine, theirs)) continue;
      if (!(await correctBookedBuyer(p.store, buyer, theirs, cursor.syncedBlock))) return wrong;
      wrong++;
      p.logger.error({ buyer, block: cursor.syncedBlock }, "escrow book disagreed with the chain; corrected from it");
      p.onCorrection?.(buyer);
    }
    return wrong;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(async () => {
      try {
        await catchUp();
        if (Date.now() - auditedAt >= p.auditMs) {
          auditedAt = Date.now();
          await audit();
        }
      } catch (error) {
        p.logger.warn({ err: (error as Error).message.split("\n")[0] }, "escrow book could not follow the chain");
      }
      schedule();
    }, p.pollMs);
  }

  return {
    maxLagSeconds: p.maxLagSeconds,
    catchUpGapMs: p.catchUpGapMs,
    catchUp,
    catchUpAfterNow,
    audit,
    /** Starts following (the first catch-up runs in the background: verify refuses until it is current). */
    start(): void {
      stopped = false;
      schedule();
    },
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await following?.catch(() => undefined);
    },
  };
}

/** A facilitator's escrow book. */
export type EscrowBook = ReturnType<typeof createEscrowBook>;

function sameState(a: BookedBuyer, b: BookedBuyer): boolean {
  const x = a.spendLimit;
  const y = b.spendLimit;
  return (
    a.balance === b.balance &&
    a.pendingWithdrawal === b.pendingWithdrawal &&
    x.limit === y.limit &&
    x.period === y.period &&
    x.windowStart === y.windowStart &&
    x.spent === y.spent &&
    x.pending?.limit === y.pending?.limit &&
    x.pending?.period === y.pending?.period &&
    x.pending?.effectiveAt === y.pending?.effectiveAt
  );
}
