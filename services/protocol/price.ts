import { BPS, FEE_BPS_LIMIT } from "./constants.ts";
import { InvalidPriceInputError } from "./errors.ts";
import { amountSchema } from "./schemas/primitives.ts";

const MULTIPLIER_SCALE = 10_000n;

/** An amount in base units: a bigint, or its canonical decimal string. */
export type AmountInput = bigint | string;

/** Inputs of {@link meteredPrice}. */
export type MeteredPriceParameters = {
  base: AmountInput;
  perKB: AmountInput;
  computeMultiplier: number;
  cap: AmountInput;
  responseBytes: number | bigint;
};

function toAmount(parameter: string, value: AmountInput): bigint {
  const parsed = amountSchema.safeParse(typeof value === "bigint" ? value.toString() : value);
  if (!parsed.success) throw new InvalidPriceInputError(parameter, value, "a uint256 amount in base units");
  return BigInt(parsed.data);
}

function toCount(parameter: string, value: number | bigint, expected: string): bigint {
  const valid = typeof value === "bigint" ? value >= 0n : Number.isSafeInteger(value) && value >= 0;
  if (!valid) throw new InvalidPriceInputError(parameter, value, expected);
  return BigInt(value);
}

/**
 * The metered charge of a response: `min(cap, ceil((base + perKB * ceil(bytes / 1024)) * round(multiplier * 10000) / 10000))`.
 * @throws {InvalidPriceInputError} on a malformed amount, negative or fractional bytes, or a negative or non-finite multiplier.
 * @example meteredPrice({ base: 1000n, perKB: 200n, computeMultiplier: 1, cap: 50000n, responseBytes: 1500 }) // 1400n
 */
export function meteredPrice(parameters: MeteredPriceParameters): bigint {
  const base = toAmount("base", parameters.base);
  const perKB = toAmount("perKB", parameters.perKB);
  const cap = toAmount("cap", parameters.cap);
  const bytes = toCount("responseBytes", parameters.responseBytes, "a non-negative integer");
  const multiplier = Math.round(parameters.computeMultiplier * Number(MULTIPLIER_SCALE));
  if (!Number.isFinite(multiplier) || parameters.computeMultiplier < 0) {
    throw new InvalidPriceInputError("computeMultiplier", parameters.computeMultiplier, "a finite number >= 0");
  }
  const kb = (bytes + 1023n) / 1024n;
  const scaled = (base + perKB * kb) * BigInt(multiplier);
  const amount = (scaled + MULTIPLIER_SCALE - 1n) / MULTIPLIER_SCALE;
  return amount < cap ? amount : cap;
}

/**
 * Splits a debit the way the PaymentEscrow contract does: `treasury = floor(amount * feeBps / 10000)`, the rest to the creator.
 * @throws {InvalidPriceInputError} on a malformed amount or a fee outside [0, 5000).
 * @example splitAmount(1200n, 500) // { creator: 1140n, treasury: 60n }
 */
export function splitAmount(amount: AmountInput, feeBps: number | bigint): { creator: bigint; treasury: bigint } {
  const total = toAmount("amount", amount);
  const fee = toCount("feeBps", feeBps, `an integer in [0, ${FEE_BPS_LIMIT})`);
  if (fee >= BigInt(FEE_BPS_LIMIT))
    throw new InvalidPriceInputError("feeBps", feeBps, `an integer in [0, ${FEE_BPS_LIMIT})`);
  const treasury = (total * fee) / BigInt(BPS);
  return { creator: total - treasury, treasury };
}
