import { randomInt } from "node:crypto";
import type { Address, Hex } from "viem";
import {
  bitmapNonce,
  LEDGER_NONCE_INDEXES,
  MAX_BITMAP_NONCE_INDEX,
  NONCES_PER_WORD,
} from "../../../protocol/bitmapNonce.ts";

const FIRST_PROCESS_WORD = Math.ceil(LEDGER_NONCE_INDEXES / NONCES_PER_WORD);

/** The words a process picks from: every whole word at or above LEDGER_NONCE_INDEXES (the spend ledger's below). */
export const PROCESS_WORDS = {
  first: FIRST_PROCESS_WORD,
  count: Math.floor((MAX_BITMAP_NONCE_INDEX + 1) / NONCES_PER_WORD) - FIRST_PROCESS_WORD,
};

/** Bitmap nonces for payments signed without a spend ledger, per escrow and buyer, in this process. */
export type ProcessNonces = {
  /** The next bitmap nonce of `buyer` at `escrow` in this process. */
  next(escrow: Address, buyer: Address): Hex;
  /** Leaves the current word for a new random one: another process of the key has spent nonces in it. */
  skipWord(escrow: Address, buyer: Address): void;
};

/**
 * Allocates bitmap nonces for callers without a spend ledger (`payForCall` alone): each buyer starts at the first
 * index of a word picked at random among PROCESS_WORDS (`randomWord` gives its offset there), the first time this
 * process pays from that key at that escrow, and goes on through consecutive indexes. A process's calls so share
 * the words of the escrow's nonce bitmap, one storage write per 96 calls (docs/protocol.md, "One nonce book per
 * buyer"), where a random 32-byte nonce takes a slot of its own for every call. Processes of one key pick their
 * words independently (one of about 22.4 million); a word another already spent in is found out by the facilitator's
 * `nonce_used` before anything runs, and the caller moves on (`skipWord`).
 * @example const nonces = createProcessNonces(); const idemKey = nonces.next(escrow, account.address)
 */
export function createProcessNonces(randomWord: () => number = () => randomInt(PROCESS_WORDS.count)): ProcessNonces {
  const nextIndex = new Map<string, number>();
  const keyOf = (escrow: Address, buyer: Address) => `${escrow.toLowerCase()}:${buyer.toLowerCase()}`;
  const freshWord = () => (PROCESS_WORDS.first + randomWord()) * NONCES_PER_WORD;
  return {
    next(escrow, buyer) {
      const key = keyOf(escrow, buyer);
      const index = nextIndex.get(key) ?? freshWord();
      nextIndex.set(key, index + 1 > MAX_BITMAP_NONCE_INDEX ? freshWord() : index + 1);
      return bitmapNonce(index);
    },
    skipWord(escrow, buyer) {
      nextIndex.set(keyOf(escrow, buyer), freshWord());
    },
  };
}

/** The allocator `payForCall` uses unless given another: one per process. */
export const processNonces: ProcessNonces = createProcessNonces();
