import { NATIVE_DECIMALS, TOKEN_DECIMALS } from "./constants.ts";

const SCALE = 10n ** BigInt(NATIVE_DECIMALS - TOKEN_DECIMALS);

/**
 * What `gas` at `gasPriceWei` costs in the payment token's base units, rounded up: on the test network gas is paid
 * in USDC with 18 decimals natively, and the token counts 6, so one base unit is 10^12 wei. Rounded up so that a
 * book never shows a settlement as cheaper than it was.
 * @example gasCostInTokenUnits(10_000n, 20_000_000_000n) // 200n: 10k gas at 20 gwei is 0.0002 USDC
 */
export function gasCostInTokenUnits(gas: bigint, gasPriceWei: bigint): bigint {
  return (gas * gasPriceWei + SCALE - 1n) / SCALE;
}
