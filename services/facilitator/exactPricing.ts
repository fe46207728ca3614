import { HttpError } from "../http/httpError.ts";
import { PriceFloorUnreachableError } from "../protocol/priceFloor.ts";
import { exactFloor } from "./exactShortfall.ts";
import type { FacilitatorContext } from "./facilitatorContext.ts";

/** `GET /pricing/exact`: the least `exact` amount this facilitator settles now, and the numbers it comes from. */
export type ExactPricing = {
  minimumAmount: string;
  baseFeeWei: string;
  gas: number;
  feeBps: number;
  marginBps: number;
  costUnits: string;
  treasuryNeededUnits: string;
  /** Whether verify refuses an `exact` payment below `minimumAmount` (EXACT_COVERS_SETTLEMENT). */
  enforced: boolean;
};

/**
 * The answer of `GET /pricing/exact`, from which a gate quotes its `exact` entry (at least the resource's cap): the
 * least amount whose treasury share pays for its own `settleExact` at the current base fee (exactFloor).
 * @throws {HttpError} 503 `not_ready` when the escrow takes no fee, so that no amount pays for it.
 * @example (await exactPricing(ctx)).minimumAmount // "103200" at 20 gwei and a 5% fee
 */
export async function exactPricing(ctx: Pick<FacilitatorContext, "chain" | "exactCoversSettlement">) {
  try {
    const floor = await exactFloor(ctx.chain);
    return {
      minimumAmount: floor.minimumBase.toString(),
      baseFeeWei: floor.baseFeeWei.toString(),
      gas: floor.gas,
      feeBps: floor.feeBps,
      marginBps: floor.marginBps,
      costUnits: floor.costPerCallUnits.toString(),
      treasuryNeededUnits: floor.treasuryNeededUnits.toString(),
      enforced: ctx.exactCoversSettlement,
    } satisfies ExactPricing;
  } catch (error) {
    if (!(error instanceof PriceFloorUnreachableError)) throw error;
    throw new HttpError(503, "not_ready", "the escrow takes no fee, so no exact payment pays for its settlement");
  }
}
