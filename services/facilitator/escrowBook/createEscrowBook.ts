import type { Logger } from "pino";
import type { Address, Hex } from "viem";
import { BlockNotFoundError } from "viem";
import type { ChainReader } from "../chain.ts";
import type { Clock } from "../facilitatorContext.ts";
import type { Store } from "../store/createStore.ts";
import type { BookCursor } from "../store/escrowBook.ts";
import {
  adoptAnchors,
  advanceBook,
  bookedBuyers,
  correctBookedBuyer,
  markBookCurrent,
  nextBookedBuyers,
  readBookCursor,
  resetBook,
} from "../store/escrowBook.ts";
import { readEscrowEvents } from "./escrowEvents.ts";
import type { MinedDebit } from "./expectedDebits.ts";
import { expectedDebits } from "./expectedDebits.ts";
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
  /**
   * Blocks below the chain's head the book follows to: the newest blocks' logs may still be missing at a provider
   * whose nodes lag one another (a load-balanced RPC), and a page read there would be booked incomplete for good.
   */
  marginBlocks: number;
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
  /** Called for every page refused because the RPC's logs lacked a debit this facilitator saw mined in it. */
  onIncompletePage?: () => void;
};

/** A nonce no buyer signs: what `buyerState` is asked about when only the account matters. */
const NO_NONCE: Hex = `0x${"0".repeat(64)}`;

/**
 * The facilitator's book of every buyer's escrow state, kept in its store from the escrow's own events, so that a
 * verify reserves against it in one statement with no chain read (reserve_call). The follower polls for new blocks
 * and follows the chain to its head less `marginBlocks` (a provider's nodes may lag one another on logs); it applies
 * each page of events in one transaction (several instances sharing a store take turns: a page applies only right
 * after the last, and must start on the block the book stands at: its first block's parent hash is the book's block
 * hash), and marks the book current when it reaches that point; a book that has not been current for `maxLagSeconds`
 * is refused by verify, which first asks it to catch up (`catchUpAfterNow`, at most one start per `catchUpGapMs`
 * however many verifies ask). A head read below the book is waited out, never replayed from (a node behind another);
 * the book replays from `startBlock` only when it is new, re-pointed, on another chain (the start block's hash
 * changed) or on a block the chain no longer has (a reorganisation deeper than the margin). The debits this
 * facilitator saw mined (`debitMined`) must be in the page that covers their block, or the page is refused as
 * incomplete and read again; a buyer whose debit is reported mined after the book passed its block is audited at
 * once. An audit also compares a few booked buyers in turn with the escrow's `buyerState` at the book's block and
 * corrects, and reports, any that differ.
 * @example const book = createEscrowBook({ store, chain, clock, logger, startBlock: 0n, maxLagSeconds: 60, ... })
 */
export function createEscrowBook(p: EscrowBookParameters) {
  const { escrow, token } = p.chain.addresses;
  const client = p.chain.publicClient;
  const margin = BigInt(Math.max(0, p.marginBlocks));
  let following: Promise<void> | null = null;
  let followStartedAt = Number.NEGATIVE_INFINITY;
  let asked: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let audited = "";
  let auditedAt = Date.now();
  const expected = expectedDebits();
  /** The book's block as this instance last read or wrote it. */
  let bookBlock = -1n;
  /** The page this instance is reading and applying, if any: a debit reported meanwhile waits for it. */
  let reading: Promise<unknown> | null = null;

  /** The block header at `blockNumber`, or null when the node does not have it (yet). */
  async function header(blockNumber: bigint): Promise<{ hash: Hex; parentHash: Hex } | null> {
    try {
      const block = await client.getBlock({ blockNumber });
      return block.hash ? { hash: block.hash, parentHash: block.parentHash } : null;
    } catch (error) {
      if (error instanceof BlockNotFoundError) return null;
      throw error;
    }
  }

  /** Empties the book, to be replayed from the start block. */
  async function replay(reason: string, cursor: BookCursor | null): Promise<void> {
    const start = await header(p.startBlock);
    if (!start) throw new Error(`the chain has no block ${p.startBlock} (ESCROW_START_BLOCK) yet`);
    if (cursor) p.logger.warn({ bookBlock: cursor.syncedBlock }, `escrow book replayed from the start: ${reason}`);
    await resetBook(p.store, escrow, p.startBlock, start.hash);
    expected.clear();
    bookBlock = p.startBlock - 1n;
  }

  /** Whether the chain's start block is not the one the book was replayed on: another chain. */
  async function onAnotherChain(cursor: BookCursor): Promise<boolean> {
    if (cursor.startHash === null) return false;
    const start = await header(p.startBlock);
    return start !== null && start.hash.toLowerCase() !== cursor.startHash;
  }

  /** Whether the chain now has another block where the book stands: it reorganised below the book. */
  async function bookBlockReplaced(cursor: BookCursor): Promise<boolean> {
    if (cursor.syncedHash === null) return false;
    const at = await header(cursor.syncedBlock);
    return at !== null && at.hash.toLowerCase() !== cursor.syncedHash;
  }

  /**
   * A book kept before the book recorded its anchors: adopts the chain's, or replays when the chain has no block
   * where the book stands (another chain, such as a restarted local one).
   */
  async function anchor(cursor: BookCursor): Promise<BookCursor | null> {
    const [start, at] = await Promise.all([header(p.startBlock), header(cursor.syncedBlock)]);
    if (!start || !at) {
      await replay("the chain has no block where the book stands", cursor);
      return null;
    }
    const anchors = { startHash: start.hash.toLowerCase(), syncedHash: at.hash.toLowerCase() };
    return (await adoptAnchors(p.store, cursor.syncedBlock, anchors)) ? { ...cursor, ...anchors } : null;
  }

  /** Audits the buyers of expected debits the book passed (up to `block`) unchecked; forgets the rest. */
  async function passExpected(block: bigint, found?: ReadonlySet<string>): Promise<void> {
    const unchecked = expected.pass(block, found);
    if (unchecked.length > 0) await auditUntilDone(unchecked);
  }

  /**
   * Reads and applies the next page, `from`..`to`: "done" when it reached `until`, "next" to read where the book
   * stands, "wait" when the RPC's answers cannot be booked yet (read again at the next poll).
   */
  async function nextPage(cursor: BookCursor, until: bigint, now: number): Promise<"done" | "next" | "wait"> {
    const from = cursor.syncedBlock + 1n;
    const span = BigInt(Math.max(1, p.logRangeBlocks));
    const to = until - from + 1n > span ? from + span - 1n : until;
    const [first, last, events] = await Promise.all([
      header(from),
      to === from ? null : header(to),
      readEscrowEvents(client, { escrow, token, fromBlock: from, toBlock: to }),
    ]);
    const end = to === from ? first : last;
    if (!first || !end) {
      p.logger.warn({ from, to }, "escrow book: the RPC does not have the blocks yet");
      return "wait";
    }
    if (cursor.syncedHash !== null && first.parentHash.toLowerCase() !== cursor.syncedHash) {
      // Another chain, a chain that reorganised below the book, or a node that answered from another fork.
      if (await onAnotherChain(cursor)) await replay("the chain's start block changed", cursor);
      else if (await bookBlockReplaced(cursor)) await replay("the chain reorganised below the book's block", cursor);
      else {
        p.logger.warn({ block: from }, "escrow book: a block's parent is not the book's; read again");
        return "wait";
      }
      return "next";
    }
    const { found, missing } = expected.check(from, to, events);
    if (missing > 0) {
      p.onIncompletePage?.();
      p.logger.warn(
        { from, to, missing },
        "escrow book: the RPC's logs lack debits this facilitator saw mined (its nodes lag the head); read again",
      );
      return "wait";
    }
    const advanced = await advanceBook(p.store, {
      from,
      to,
      toHash: end.hash,
      events,
      currentAt: to === until ? now : null,
    });
    if (!advanced) return "next";
    bookBlock = to;
    await passExpected(to, found);
    // A page that reached as far as the book follows marked the book current: this catch-up is done (another block
    // mined since is the next poll's).
    return to === until ? "done" : "next";
  }

  async function follow(): Promise<void> {
    for (let pages = 0; ; pages++) {
      const head = await client.getBlockNumber({ cacheTime: 0 });
      let cursor = await readBookCursor(p.store);
      if (!cursor || cursor.escrow !== escrow.toLowerCase()) {
        await replay(cursor ? "the escrow changed" : "a new book", cursor);
        continue;
      }
      if (cursor.startHash === null) cursor = await anchor(cursor);
      if (!cursor) continue;
      bookBlock = cursor.syncedBlock;
      await passExpected(cursor.syncedBlock);
      const until = head - margin;
      if (until < cursor.syncedBlock) {
        // A head below the book: a node behind the one the book was read from (waited out), or another chain.
        if (!(await onAnotherChain(cursor))) return;
        await replay("the chain's start block changed", cursor);
        continue;
      }
      const now = p.clock.now();
      if (until === cursor.syncedBlock) {
        if (cursor.currentAt < now) await markBookCurrent(p.store, until, now);
        return;
      }
      const page = nextPage(cursor, until, now);
      reading = page;
      const outcome = await page.finally(() => {
        reading = null;
      });
      if (outcome !== "next") return;
      if (pages > 0 && pages % 20 === 0) p.logger.info({ bookBlock, head }, "escrow book catching up");
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

  /**
   * Compares `buyers` (lowercase or checksummed) with the chain at the book's block, correcting and reporting any booked
   * wrong; returns how many were, or null when the book moved on meanwhile (some may be left uncompared).
   */
  async function auditBuyers(buyers: readonly string[]): Promise<number | null> {
    const cursor = await readBookCursor(p.store);
    if (!cursor) return 0;
    const booked = await bookedBuyers(
      p.store,
      buyers.map((b) => b.toLowerCase()),
    );
    if ((await readBookCursor(p.store))?.syncedBlock !== cursor.syncedBlock) return null;
    let wrong = 0;
    for (const [buyer, mine] of booked) {
      const truth = await p.chain.buyerState(buyer as Address, NO_NONCE, cursor.syncedBlock);
      const theirs: BookedBuyer = { ...truth, changedBlock: mine.changedBlock };
      if (sameState(mine, theirs)) continue;
      if (!(await correctBookedBuyer(p.store, buyer, theirs, cursor.syncedBlock))) return null;
      wrong++;
      p.logger.error({ buyer, block: cursor.syncedBlock }, "escrow book disagreed with the chain; corrected from it");
      p.onCorrection?.(buyer);
    }
    return wrong;
  }

  /** Audits `buyers` until one audit compares them all at one block of the book (a few tries). */
  async function auditUntilDone(buyers: readonly string[]): Promise<void> {
    for (let tries = 0; tries < 5; tries++) if ((await auditBuyers(buyers)) !== null) return;
    throw new Error("the escrow book kept moving during an audit of debited buyers");
  }

  /**
   * Compares the next `auditSize` booked buyers with the chain at the book's block; returns how many were wrong. A round
   * the book moved during is compared again next time, never skipped: on a busy chain it would be skipped every time.
   */
  async function audit(): Promise<number> {
    const buyers = await nextBookedBuyers(p.store, audited, p.auditSize);
    const wrong = await auditBuyers(buyers);
    if (wrong !== null) audited = buyers.at(-1) ?? "";
    return wrong ?? 0;
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
    marginBlocks: p.marginBlocks,
    catchUpGapMs: p.catchUpGapMs,
    catchUp,
    catchUpAfterNow,
    audit,
    /**
     * Reports a debit this facilitator saw mined, before the store records it as mined (from then on it is no longer
     * held against its buyer unless mined after the book's block): the page that covers its block must hold it, or it
     * is read again (the RPC's logs lag); when the book has already passed its block, its buyer is audited first.
     */
    async debitMined(d: MinedDebit): Promise<void> {
      await reading?.catch(() => undefined);
      if (d.block > bookBlock) return expected.add(d);
      await auditUntilDone([d.buyer]);
    },
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
