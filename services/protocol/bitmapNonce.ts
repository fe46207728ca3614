import type { Hex } from "viem";
import { hexToBigInt, keccak256, numberToHex, toHex } from "viem";

/**
 * First four bytes of a bitmap nonce: `bytes4(keccak256("ServiceEscrow.bitmapNonce"))`, the escrow's
 * `BITMAP_NONCE_TAG`. A bitmap nonce is the tag, 24 zero bytes, then a uint32 index n; the escrow spends it as bit
 * n % 96 of the buyer's nonce word n / 96 (docs/protocol.md). A random 32-byte nonce takes this form with probability
 * 2^-224 and is spent in a slot of its own.
 */
export const BITMAP_NONCE_TAG: Hex = keccak256(toHex("ServiceEscrow.bitmapNonce")).slice(0, 10) as Hex;

/** Nonces per word of a buyer's bitmap: the calls that share one word's storage write. */
export const NONCES_PER_WORD = 96;

/** Largest index a bitmap nonce carries (a uint32). */
export const MAX_BITMAP_NONCE_INDEX = 2 ** 32 - 1;

/**
 * Where a key's bitmap indexes are split between the buyer SDK's two allocators: below it the spend ledger's, taken
 * in order (one past the highest it knows of), from it up the words a process without a ledger picks at random
 * (processNonces.ts), so neither ever makes the other skip ahead or reuse an index.
 */
export const LEDGER_NONCE_INDEXES = 2 ** 31;

/**
 * The bitmap nonce of index `index` (0 ≤ index < 2^32); consecutive indexes share a word of the buyer's bitmap.
 * @example bitmapNonce(5) // '0x<tag>000…0005'
 */
export function bitmapNonce(index: number): Hex {
  if (!Number.isInteger(index) || index < 0 || index > MAX_BITMAP_NONCE_INDEX)
    throw new RangeError(`a bitmap nonce index is an integer from 0 to ${MAX_BITMAP_NONCE_INDEX}, not ${index}`);
  return `${BITMAP_NONCE_TAG}${"00".repeat(24)}${numberToHex(index, { size: 4 }).slice(2)}` as Hex;
}

/**
 * The index of a bitmap nonce, or null for any other nonce (which the escrow spends in a slot of its own).
 * @example bitmapNonceIndex(bitmapNonce(7)) // 7
 */
export function bitmapNonceIndex(nonce: Hex): number | null {
  if (nonce.length !== 66) return null;
  const value = hexToBigInt(nonce);
  if (value >> 32n !== hexToBigInt(BITMAP_NONCE_TAG) << 192n) return null;
  return Number(value & 0xffffffffn);
}
