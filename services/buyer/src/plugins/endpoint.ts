import type { Hex } from "viem";

/**
 * One endpoint as the generator projects it: resource id, slug, price and reputation, plus the display text of its
 * skill. Never a money field the buyer signs (escrow, asset, cap): the buyer re-pins those against the chain.
 */
export type Endpoint = {
  resourceId: Hex;
  /** Normalised slug, before collisions are resolved into plugin names. */
  slug: string;
  title: string;
  description: string;
  category: string | undefined;
  /** Indicative price in stablecoin base units; the 402 quote is what the buyer pays by. */
  price: { base: string; perKB: string };
  /** Index reputation in [0, 100]; undefined when the endpoint came from a card alone. */
  reputation: number | undefined;
  /** Health score in [0, 100] from the index or the card. */
  health: number;
  /** The marketplace that serves the endpoint's card, which the buyer MCP reads. */
  marketplaceUrl: string;
};
