import type { Hex } from "viem";
import { hexToBigInt, numberToHex, size, slice } from "viem";
import type { DebitItem } from "./debitItem.ts";

/** The escrow's `CompactDebit`: a `DebitItem` in six static words (see IPaymentEscrow.sol). */
export type CompactDebit = { buyerWindow: bigint; resourceId: Hex; nonce: Hex; amounts: bigint; r: Hex; vs: Hex };

/**
 * The compact encoding of `item`, or null when it has none: a validAfter or validBefore of 2^48 or more, a cap or
 * amount of 2^128 or more, or a signature that is not 65 bytes with v = 27 or 28 and s below 2^255 (a contract
 * wallet's signature, say). The encoding is lossless, so the escrow checks the signature against exactly what the
 * buyer signed.
 * @example const compact = compactDebit(item) // then debitBatchCompact([compact, ...])
 */
export function compactDebit(item: DebitItem): CompactDebit | null {
  const a = item.authorization;
  if (a.validAfter >= 1n << 48n || a.validBefore >= 1n << 48n) return null;
  if (a.maxAmount >= 1n << 128n || item.amount >= 1n << 128n) return null;
  if (size(item.signature) !== 65) return null;
  const v = hexToBigInt(slice(item.signature, 64, 65));
  const s = hexToBigInt(slice(item.signature, 32, 64));
  if ((v !== 27n && v !== 28n) || s >= 1n << 255n) return null;
  return {
    buyerWindow: (a.validAfter << 208n) | (a.validBefore << 160n) | hexToBigInt(a.buyer),
    resourceId: a.resourceId,
    nonce: a.nonce,
    amounts: (a.maxAmount << 128n) | item.amount,
    r: slice(item.signature, 0, 32),
    vs: numberToHex(((v - 27n) << 255n) | s, { size: 32 }),
  };
}
