import { meteredPrice } from "../../../protocol/price.ts";
import type { MeteredTerms } from "../../../protocol/schemas/pricing.ts";
import type { AmountView } from "../sdk/formatAmount.ts";
import { formatAmount } from "../sdk/formatAmount.ts";

/** A call's price as the buyer shows it: the metered terms, examples by response size, and the cap. */
export type PriceView = {
  formula: string;
  base: AmountView;
  perKB: AmountView;
  computeMultiplier: number;
  maxResponseBytes?: number;
  /** What a response of `responseKB` KB costs, for a few sizes (and the one asked for). */
  byResponseSize: { responseKB: number; cost: AmountView }[];
  /** The most one call can debit, whatever the response: what is signed, and what the spend policy checks. */
  cap: AmountView;
};

const FORMULA =
  "min(cap, ceil((base + perKB × ceil(responseBytes / 1024)) × computeMultiplier)): the price is set by the size of the validated response, not by the request body";

/**
 * The price of a call from the quote's metered terms and the pinned cap: what responses of 1 KB, 10 KB, the largest
 * allowed response and `responseKB` (when given) would cost, each at most the cap.
 * @example describePrice(entry.pricing, terms.cap, 4)
 */
export function describePrice(pricing: MeteredTerms, cap: bigint, responseKB?: number): PriceView {
  const sizes = new Set([1, 10]);
  if (pricing.maxResponseBytes) sizes.add(Math.ceil(pricing.maxResponseBytes / 1024));
  if (responseKB !== undefined) sizes.add(responseKB);
  const cost = (kb: number) =>
    formatAmount(
      meteredPrice({
        base: pricing.base,
        perKB: pricing.perKB,
        computeMultiplier: pricing.computeMultiplier,
        cap,
        responseBytes: kb * 1024,
      }),
    );
  return {
    formula: FORMULA,
    base: formatAmount(pricing.base),
    perKB: formatAmount(pricing.perKB),
    computeMultiplier: pricing.computeMultiplier,
    ...(pricing.maxResponseBytes ? { maxResponseBytes: pricing.maxResponseBytes } : {}),
    byResponseSize: [...sizes].sort((a, b) => a - b).map((kb) => ({ responseKB: kb, cost: cost(kb) })),
    cap: formatAmount(cap),
  };
}
