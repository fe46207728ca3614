import { BPS, FEE_BPS_LIMIT } from "./constants.ts";
import { BaseError, InvalidPriceInputError } from "./errors.ts";
import { gasCostInTokenUnits } from "./gasCostInTokenUnits.ts";

/** Inputs of {@link priceFloor}: the expected gas of one settled debit, the chain's base fee, the escrow's fee, the operator's margin. */
export type PriceFloorParameters = {
  /** Gas one settled debit is expected to cost (`SETTLEMENT_GAS_PER_DEBIT`). */
  gasPerDebit: number | bigint;
  /** The chain's current base fee, in wei of the native currency (18 decimals). */
  baseFeeWei: bigint;
  /** The escrow's treasury fee, in basis points of each debit. */
  feeBps: number | bigint;
  /** The operator's margin over the cost, in basis points (2000 = 20%). */
  marginBps: number | bigint;
};

/** The least price that pays for its own settlement, and the numbers it comes from (amounts in token base units). */
export type PriceFloor = {
  /** The least `base` (and `max`) a resource may list: its treasury share covers `treasuryNeededUnits`. */
  minimumBase: bigint;
  /** What one settled debit costs at the base fee, rounded up. */
  costPerCallUnits: bigint;
  /** `costPerCallUnits` with the margin, rounded up: what the treasury's share of one call must reach. */
  treasuryNeededUnits: bigint;
};

/** The escrow takes no fee, so no price's treasury share covers a settlement that costs something. */
export class PriceFloorUnreachableError extends BaseError {
  override name = "PriceFloorUnreachableError";
  readonly feeBps: bigint;
  readonly treasuryNeededUnits: bigint;

  constructor(feeBps: bigint, treasuryNeededUnits: bigint) {
    super(
      `no price covers settlement: the escrow's fee is ${feeBps} bps, so the treasury earns nothing per call, and a call needs ${treasuryNeededUnits} base units`,
    );
    this.feeBps = feeBps;
    this.treasuryNeededUnits = treasuryNeededUnits;
  }
}

/** What {@link priceFloor} throws. */
export type PriceFloorErrorType = InvalidPriceInputError | PriceFloorUnreachableError;

function count(parameter: string, value: number | bigint, limit?: bigint): bigint {
  const valid = typeof value === "bigint" ? value >= 0n : Number.isSafeInteger(value) && value >= 0;
  const expected = limit === undefined ? "a non-negative integer" : `an integer in [0, ${limit})`;
  if (!valid || (limit !== undefined && BigInt(value) >= limit))
    throw new InvalidPriceInputError(parameter, value, expected);
  return BigInt(value);
}

/**
 * The price floor: the least `base` whose treasury share, `floor(base × feeBps / 10000)` as the escrow splits it,
 * covers the expected settlement cost of one debit with the operator's margin,
 * `ceil(gasCost(gasPerDebit, baseFeeWei) × (10000 + marginBps) / 10000)`. Zero gas or a zero base fee make it 0.
 * @throws {InvalidPriceInputError} on a negative or fractional input, or a fee outside [0, 5000).
 * @throws {PriceFloorUnreachableError} when the fee is 0 and settlement costs something.
 * @example priceFloor({ gasPerDebit: 16_000, baseFeeWei: 20_000_000_000n, feeBps: 500, marginBps: 2000 }) // { minimumBase: 7680n, costPerCallUnits: 320n, treasuryNeededUnits: 384n }
 */
export function priceFloor(p: PriceFloorParameters): PriceFloor {
  const gas = count("gasPerDebit", p.gasPerDebit);
  const baseFee = count("baseFeeWei", p.baseFeeWei);
  const fee = count("feeBps", p.feeBps, BigInt(FEE_BPS_LIMIT));
  const margin = count("marginBps", p.marginBps);
  const bps = BigInt(BPS);
  const costPerCallUnits = gasCostInTokenUnits(gas, baseFee);
  const treasuryNeededUnits = (costPerCallUnits * (bps + margin) + bps - 1n) / bps;
  if (treasuryNeededUnits === 0n) return { minimumBase: 0n, costPerCallUnits, treasuryNeededUnits };
  if (fee === 0n) throw new PriceFloorUnreachableError(fee, treasuryNeededUnits);
  // floor(base × fee / 10000) ≥ needed  ⇔  base × fee ≥ needed × 10000 (needed is whole).
  const minimumBase = (treasuryNeededUnits * bps + fee - 1n) / fee;
  return { minimumBase, costPerCallUnits, treasuryNeededUnits };
}
