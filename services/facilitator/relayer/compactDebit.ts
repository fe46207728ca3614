import { hexToBigInt, numberToHex, size, slice } from "viem";
import type { Address, Hex } from "viem";
import type { DebitItem } from "./createRelayer.ts";

/** The escrow's `CompactDebit`: a `DebitItem` in seven static words (see IPaymentEscrow.sol). */
export type CompactDebit = { buyer: Address; resourceId: Hex; nonce: Hex; amounts: bigint; window: bigint; r: Hex; vs: Hex };

const LIMIT = 1n << 128n;

/**
 * The compact encoding of `item`, or null when it has none: a value of 2^128 or more, or a signature that is not
 * 65 bytes with v = 27 or 28 and s below 2^255 (a contract wallet's signature, say). The encoding is lossless, so
 * the escrow checks the signature against exactly what the buyer signed.
 * @example const compact = compactDebit(item) // then debitBatchCompact([compact, ...])
 */
export function compactDebit(item: DebitItem): CompactDebit | null {
  const a = item.authorization;
  if ([a.maxAmount, a.validAfter, a.validBefore, item.amount].some((value) => value >= LIMIT)) return null;
  if (size(item.signature) !== 65) return null;
  const v = hexToBigInt(slice(item.signature, 64, 65));
  const s = hexToBigInt(slice(item.signature, 32, 64));
  if ((v !== 27n && v !== 28n) || s >= 1n << 255n) return null;
  return {
    buyer: a.buyer,
    resourceId: a.resourceId,
    nonce: a.nonce,
    amounts: (a.maxAmount << 128n) | item.amount,
    window: (a.validAfter << 128n) | a.validBefore,
    r: slice(item.signature, 0, 32),
    vs: numberToHex(((v - 27n) << 255n) | s, { size: 32 }),
  };
}
