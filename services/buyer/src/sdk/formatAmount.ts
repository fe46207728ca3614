import { formatUnits } from "viem";

/** The stablecoin's decimals: 1000000 base units are 1 USDC. */
const USDC_DECIMALS = 6;

/** An amount as an agent or a person reads it: base units (exact, for arithmetic) and USDC (6 decimals). */
export type AmountView = { base: string; usdc: string };

/**
 * The one way the buyer shows an amount: its base units and its USDC reading; `text` for a sentence.
 * @example formatAmount(1200n) // { base: "1200", usdc: "0.0012 USDC" }; formatAmount.text(1200n) // "1200 (0.0012 USDC)"
 */
export function formatAmount(value: bigint | string): AmountView {
  const base = BigInt(value);
  return { base: base.toString(), usdc: `${formatUnits(base, USDC_DECIMALS)} USDC` };
}

/**
 * An amount inside a sentence: `"1200 base units (0.0012 USDC)"`.
 * @example `the cap is ${formatAmount.text(cap)}`
 */
formatAmount.text = (value: bigint | string): string => {
  const { base, usdc } = formatAmount(value);
  return `${base} base units (${usdc})`;
};
