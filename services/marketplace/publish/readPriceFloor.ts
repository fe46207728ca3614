import { BLOCK_TIME_MS } from "../../protocol/constants.ts";
import type { PriceFloor } from "../../protocol/priceFloor.ts";
import { priceFloor } from "../../protocol/priceFloor.ts";
import type { MarketplaceChain } from "../chain.ts";
import type { MarketplaceConfig } from "../loadMarketplaceConfig.ts";

/** The price floor now, with every number it comes from (`GET /pricing/floor`'s body, as bigints). */
export type PriceFloorReading = PriceFloor & {
  baseFeeWei: bigint;
  gasPerDebit: number;
  feeBps: number;
  marginBps: number;
};

/**
 * Reads the price floor now: the latest block's base fee and the escrow's fee from the chain, the expected gas per
 * settled debit and the operator's margin from the configuration (docs/protocol.md, "Price floor").
 * @throws {PriceFloorUnreachableError} when the escrow takes no fee and settlement costs something.
 * @example const { minimumBase } = await readPriceFloor(ctx.chain, ctx.config)
 */
export async function readPriceFloor(
  chain: Pick<MarketplaceChain, "baseFeeWei" | "feeBps">,
  config: Pick<MarketplaceConfig, "SETTLEMENT_GAS_PER_DEBIT" | "SETTLEMENT_MARGIN_BPS">,
): Promise<PriceFloorReading> {
  const [baseFeeWei, feeBps] = await Promise.all([chain.baseFeeWei(), chain.feeBps()]);
  const gasPerDebit = config.SETTLEMENT_GAS_PER_DEBIT;
  const marginBps = config.SETTLEMENT_MARGIN_BPS;
  const floor = priceFloor({ gasPerDebit, baseFeeWei, feeBps, marginBps });
  return { ...floor, baseFeeWei, gasPerDebit, feeBps: Number(feeBps), marginBps };
}

/**
 * `GET /pricing/floor`'s reading, shared: concurrent requests wait for one read of the chain, and a reading is
 * answered again for `maxAgeMs` (a block, BLOCK_TIME_MS, by default: the base fee changes once a block). The route is
 * public and each read is two RPC calls, so without it every request would be two calls to the operator's RPC
 * provider. A failed read is not kept. Publishing reads the floor itself, fresh (`checkPrice`).
 * @example const floorNow = sharedPriceFloor(ctx.chain, ctx.config); const { minimumBase } = await floorNow()
 */
export function sharedPriceFloor(
  chain: Pick<MarketplaceChain, "baseFeeWei" | "feeBps">,
  config: Pick<MarketplaceConfig, "SETTLEMENT_GAS_PER_DEBIT" | "SETTLEMENT_MARGIN_BPS">,
  { maxAgeMs = BLOCK_TIME_MS, now = () => performance.now() } = {},
): () => Promise<PriceFloorReading> {
  let reading: { at: number; value: Promise<PriceFloorReading> } | undefined;
  return () => {
    if (reading && now() - reading.at < maxAgeMs) return reading.value;
    const mine = { at: now(), value: readPriceFloor(chain, config) };
    reading = mine;
    mine.value.catch(() => {
      if (reading === mine) reading = undefined;
    });
    return mine.value;
  };
}
