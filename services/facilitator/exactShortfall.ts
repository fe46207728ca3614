import { SETTLEMENT_GAS_EXACT, SETTLEMENT_MARGIN_BPS } from "../protocol/constants.ts";
import { splitAmount } from "../protocol/price.ts";
import { PriceFloorUnreachableError, priceFloor } from "../protocol/priceFloor.ts";
import type { ChainReader } from "./chain.ts";

/**
 * Why an `exact` payment of `amount` does not pay for its own settlement, or null when it does: its treasury share,
 * as the escrow splits it, must cover a `settleExact` (SETTLEMENT_GAS_EXACT) at the chain's current base fee with the
 * operator's default margin (SETTLEMENT_MARGIN_BPS, which also pays the priority fee), as the price floor does for a
 * batched debit, since the relayer sends that transaction for this payment alone.
 * @example await exactShortfall(ctx.chain, 50_000n) // "an exact payment of 50000 pays the treasury 2500, …"
 */
export async function exactShortfall(
  chain: Pick<ChainReader, "escrowPolicy" | "baseFeeWei">,
  amount: bigint,
): Promise<string | null> {
  const [{ feeBps }, baseFeeWei] = await Promise.all([chain.escrowPolicy(), chain.baseFeeWei()]);
  try {
    const floor = priceFloor({
      gasPerDebit: SETTLEMENT_GAS_EXACT,
      baseFeeWei,
      feeBps,
      marginBps: SETTLEMENT_MARGIN_BPS,
    });
    if (amount >= floor.minimumBase) return null;
    const { treasury } = splitAmount(amount, feeBps);
    return `an exact payment of ${amount} pays the treasury ${treasury}, less than its settlement costs at the current base fee with the operator's margin (${floor.treasuryNeededUnits}); pay with service-escrow, or exact of at least ${floor.minimumBase}`;
  } catch (error) {
    if (!(error instanceof PriceFloorUnreachableError)) throw error;
    return "the escrow takes no fee, so no exact payment pays for its settlement; pay with service-escrow";
  }
}
