import type { Hex } from "viem";
import { bitmapNonceIndex } from "./bitmapNonce.ts";
import { NONCE_SLOT_GAS, SETTLEMENT_GAS_PER_DEBIT } from "./constants.ts";

/**
 * Gas a batched debit of `nonce` is expected to cost, what the treasury's share of its price must pay for: a bitmap
 * nonce shares its buyer's nonce word ({@link SETTLEMENT_GAS_PER_DEBIT}); any other nonce also writes a storage slot of
 * its own ({@link NONCE_SLOT_GAS} more). docs/protocol.md, "Price floor".
 * @example expectedDebitGas(bitmapNonce(7)) // 16_000; expectedDebitGas(randomNonce()) // 38_100
 */
export function expectedDebitGas(nonce: Hex): number {
  return bitmapNonceIndex(nonce) === null ? SETTLEMENT_GAS_PER_DEBIT + NONCE_SLOT_GAS : SETTLEMENT_GAS_PER_DEBIT;
}
