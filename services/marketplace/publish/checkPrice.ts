import { formatGwei, formatUnits } from "viem";
import { TOKEN_DECIMALS } from "../../protocol/constants.ts";
import { splitAmount } from "../../protocol/price.ts";
import { PriceFloorUnreachableError } from "../../protocol/priceFloor.ts";
import type { MarketplaceChain } from "../chain.ts";
import type { MarketplaceConfig } from "../loadMarketplaceConfig.ts";
import type { PublishRequest } from "./publishRequest.ts";
import type { PriceFloorReading } from "./readPriceFloor.ts";
import { readPriceFloor } from "./readPriceFloor.ts";

/** How a floor came about, in words: the base fee, the gas, the cost per call, the fee and the margin. */
function because(floor: PriceFloorReading): string {
  const usdc = (units: bigint) => `${formatUnits(units, TOKEN_DECIMALS)} USDC`;
  return (
    `at a base fee of ${formatGwei(floor.baseFeeWei)} gwei a settled debit (${floor.gasPerDebit} gas) costs ` +
    `${floor.costPerCallUnits} base units (${usdc(floor.costPerCallUnits)}) per call, ` +
    `${floor.treasuryNeededUnits} (${usdc(floor.treasuryNeededUnits)}) with the operator's ${floor.marginBps / 100}% margin, ` +
    `and the treasury's share of a call is ${floor.feeBps / 100}% (floor(amount × ${floor.feeBps} / 10000))`
  );
}

/**
 * The price stage: a listing pays for its own settlement. The signed `base` (the least a successful call is charged)
 * and `max` must both be at least the price floor, the least base whose treasury share covers the expected
 * settlement cost of one debit at the chain's current base fee with the operator's margin; a refusal names every
 * number (docs/protocol.md, "Price floor").
 * @example const verdict = await checkPrice({ chain: ctx.chain, config: ctx.config, request })
 */
export async function checkPrice({
  chain,
  config,
  request,
}: {
  chain: Pick<MarketplaceChain, "baseFeeWei" | "feeBps">;
  config: Pick<MarketplaceConfig, "SETTLEMENT_GAS_PER_DEBIT" | "SETTLEMENT_MARGIN_BPS">;
  request: Pick<PublishRequest, "pricing">;
}): Promise<{ ok: true; floor: PriceFloorReading } | { ok: false; reason: string }> {
  let floor: PriceFloorReading;
  try {
    floor = await readPriceFloor(chain, config);
  } catch (error) {
    if (error instanceof PriceFloorUnreachableError) return { ok: false, reason: error.shortMessage };
    throw error;
  }
  const base = BigInt(request.pricing.base);
  const max = BigInt(request.pricing.max);
  const [term, value] = base < floor.minimumBase ? ["base", base] : ["max", max];
  if (value >= floor.minimumBase) return { ok: true, floor };
  const share = splitAmount(value, floor.feeBps).treasury;
  return {
    ok: false,
    reason:
      `${term} ${value} is below the minimum base ${floor.minimumBase}: ${because(floor)}, ` +
      `so ${term} ${value} earns the treasury ${share} per call, less than ${floor.treasuryNeededUnits}; ` +
      `list base and max at ${floor.minimumBase} or more`,
  };
}
