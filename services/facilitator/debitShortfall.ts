import type { Hex } from "viem";
import { BITMAP_NONCE_TAG, bitmapNonceIndex, NONCES_PER_WORD } from "../protocol/bitmapNonce.ts";
import { NONCE_SLOT_GAS, SETTLEMENT_GAS_PER_DEBIT, SETTLEMENT_MARGIN_BPS } from "../protocol/constants.ts";
import { expectedDebitGas } from "../protocol/expectedDebitGas.ts";
import { splitAmount } from "../protocol/price.ts";
import { PriceFloorUnreachableError, priceFloor } from "../protocol/priceFloor.ts";
import type { ChainReader } from "./chain.ts";

/**
 * How a buyer signs nonces that share storage, for a refusal's message (docs/protocol.md, "Bitmap nonces").
 */
export const BITMAP_NONCE_LAYOUT = `sign bitmap nonces instead: the tag ${BITMAP_NONCE_TAG} (bytes4 of keccak256("ServiceEscrow.bitmapNonce")), 24 zero bytes, then a uint32 index n, each index once (n spends bit n % ${NONCES_PER_WORD} of your nonce word n / ${NONCES_PER_WORD}; consecutive indexes share a word; docs/protocol.md, "Bitmap nonces")`;

/**
 * Why an escrow payment carrying `nonce` for a resource whose registered base price is `base` does not pay for its
 * settlement, or null when it does: the treasury's share of `base` (the least a successful call is charged) must cover
 * the expected gas of a batched debit of that nonce (expectedDebitGas: a random nonce writes a slot of its own) at the
 * chain's current base fee with the operator's default margin, the price floor of docs/protocol.md. A random nonce
 * that a bitmap nonce would make affordable is refused with the bitmap layout, so the buyer learns how to pay.
 * @example await debitShortfall(ctx.chain, 10_000n, randomNonce()) // at 20 gwei: "a random nonce spends … sign bitmap nonces instead: …"
 */
export async function debitShortfall(
  chain: Pick<ChainReader, "escrowPolicy" | "baseFeeWei">,
  base: bigint,
  nonce: Hex,
): Promise<string | null> {
  const [{ feeBps }, baseFeeWei] = await Promise.all([chain.escrowPolicy(), chain.baseFeeWei()]);
  const floorOf = (gasPerDebit: number) =>
    priceFloor({ gasPerDebit, baseFeeWei, feeBps, marginBps: SETTLEMENT_MARGIN_BPS });
  try {
    const floor = floorOf(expectedDebitGas(nonce));
    if (base >= floor.minimumBase) return null;
    const { treasury } = splitAmount(base, feeBps);
    const short = `the resource's base price ${base} pays the treasury ${treasury}, less than`;
    if (bitmapNonceIndex(nonce) === null && base >= floorOf(SETTLEMENT_GAS_PER_DEBIT).minimumBase)
      return `${short} a debit of a random nonce costs at the current base fee with the operator's margin (${floor.treasuryNeededUnits}): a nonce that is not a bitmap nonce is spent in a storage slot of its own (${NONCE_SLOT_GAS} gas more), which this price pays for only from ${floor.minimumBase}; ${BITMAP_NONCE_LAYOUT}`;
    return `${short} a debit costs at the current base fee with the operator's margin (${floor.treasuryNeededUnits}): the price floor is now ${floor.minimumBase}, and the creator must re-price`;
  } catch (error) {
    if (!(error instanceof PriceFloorUnreachableError)) throw error;
    return "the escrow takes no fee, so no price pays for its settlement";
  }
}
