import { SETTLEMENT_GAS_EXACT, SETTLEMENT_MARGIN_BPS } from "../protocol/constants.ts";
import { splitAmount } from "../protocol/price.ts";
import type { PriceFloor } from "../protocol/priceFloor.ts";
import { PriceFloorUnreachableError, priceFloor } from "../protocol/priceFloor.ts";
import type { ChainReader } from "./chain.ts";

/** The least `exact` amount that pays for its own settlement now, and the numbers it comes from. */
export type ExactFloor = PriceFloor & { baseFeeWei: bigint; feeBps: number; gas: number; marginBps: number };

/**
 * The least `exact` amount whose treasury share, as the escrow splits it, covers a `settleExact`
 * (SETTLEMENT_GAS_EXACT) at the chain's current base fee with the operator's default margin (SETTLEMENT_MARGIN_BPS,
 * which also pays the priority fee), as the price floor does for a batched debit: the relayer sends that transaction
 * for this payment alone. The base fee is read at most once per block time and the escrow's fee once a second.
 * @throws {PriceFloorUnreachableError} when the escrow takes no fee, so no amount pays for it.
 * @example (await exactFloor(ctx.chain)).minimumBase // 103200n at 20 gwei and a 5% fee
 */
export async function exactFloor(chain: Pick<ChainReader, "escrowPolicy" | "baseFeeWei">): Promise<ExactFloor> {
  const [{ feeBps }, baseFeeWei] = await Promise.all([chain.escrowPolicy(), chain.baseFeeWei()]);
  const terms = { gas: SETTLEMENT_GAS_EXACT, baseFeeWei, feeBps, marginBps: SETTLEMENT_MARGIN_BPS };
  return { ...terms, ...priceFloor({ ...terms, gasPerDebit: terms.gas }) };
}

/**
 * Why an `exact` payment of `amount` does not pay for its own settlement ({@link exactFloor}), or null when it does.
 * The gate quotes at least that amount, so a payment below it was signed against an older, lower quote (the fee rose
 * since) or by hand.
 * @example await exactShortfall(ctx.chain, 50_000n) // "an exact payment of 50000 pays the treasury 2500, …"
 */
export async function exactShortfall(
  chain: Pick<ChainReader, "escrowPolicy" | "baseFeeWei">,
  amount: bigint,
): Promise<string | null> {
  try {
    const floor = await exactFloor(chain);
    if (amount >= floor.minimumBase) return null;
    const { treasury } = splitAmount(amount, floor.feeBps);
    return `an exact payment of ${amount} pays the treasury ${treasury}, less than its own settlement costs at the current base fee with the operator's margin (${floor.treasuryNeededUnits}): the resource's quote now asks for exact of at least ${floor.minimumBase}; sign again against a new quote, or pay with service-escrow`;
  } catch (error) {
    if (!(error instanceof PriceFloorUnreachableError)) throw error;
    return "the escrow takes no fee, so no exact payment pays for its settlement; pay with service-escrow";
  }
}
