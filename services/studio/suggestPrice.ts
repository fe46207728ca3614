/** Base charge per call for a handler that answers in under a millisecond (base units: 0.001 of a stablecoin). */
export const BASE_PRICE = 1_000n;

/** Charge per KB of response (base units). */
export const PER_KB_PRICE = 100n;

/** Added to the base per millisecond of handler time at the 95th percentile (base units). */
export const PRICE_PER_MS = 50n;

/**
 * Metered price terms for a handler: the base grows with its measured p95 time, the per-KB charge is flat, and the
 * cap covers the largest response it may send (`maxResponseBytes`), so a valid answer is never cut by the cap. With
 * `minimumBase` (the marketplace's price floor, `GET /pricing/floor`) the base is raised to it when below, and the cap
 * with it: a suggested price never falls below the floor.
 * @example suggestPrice({ maxResponseBytes: 1024, p95Ms: 2 }) // { base: "1100", perKB: "100", max: "1200" }
 * @example suggestPrice({ maxResponseBytes: 1024, p95Ms: 2, minimumBase: 7680n }) // { base: "7680", perKB: "100", max: "7780" }
 */
export function suggestPrice({
  maxResponseBytes,
  p95Ms = 0,
  minimumBase = 0n,
}: {
  maxResponseBytes: number;
  p95Ms?: number;
  minimumBase?: bigint;
}) {
  const measured = BASE_PRICE + PRICE_PER_MS * BigInt(Math.ceil(Math.max(0, p95Ms)));
  const base = measured < minimumBase ? minimumBase : measured;
  const max = base + PER_KB_PRICE * BigInt(Math.ceil(maxResponseBytes / 1024));
  return { base: base.toString(), perKB: PER_KB_PRICE.toString(), max: max.toString() };
}
