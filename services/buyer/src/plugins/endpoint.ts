import type { Hex } from "viem";

/**
 * What the creator of an endpoint wrote in its agent card: its name, description and skills. Nobody but the creator
 * vouches for these words, so the generator only ever quotes them, sanitised, as data in the body of the skill.
 */
export type CreatorWords = {
  name: string;
  description: string;
  skills: readonly { name: string; description: string; tags: readonly string[]; examples: readonly string[] }[];
};

/**
 * One endpoint as the generator projects it: resource id, slug, category, price and reputation, from which every
 * name, heading and manifest field is written, and the creator's own words when its card was read. Never a money
 * field the buyer signs (escrow, asset, cap): the buyer re-pins those against the chain.
 */
export type Endpoint = {
  resourceId: Hex;
  /** Normalised slug, before collisions are resolved into plugin names. */
  slug: string;
  /** The index's category when it is a short slug (see `boundCategory`); undefined otherwise or for a card alone. */
  category: string | undefined;
  /** Indicative price in stablecoin base units; the 402 quote is what the buyer pays by. */
  price: { base: string; perKB: string };
  /** Index reputation in [0, 100]; undefined when the endpoint came from a card alone. */
  reputation: number | undefined;
  /** Health score in [0, 100] from the index or the card. */
  health: number;
  /** The marketplace that serves the endpoint's card, which the buyer MCP reads. */
  marketplaceUrl: string;
  /** Where its agent card is read (the index record's `cardUrl`, or the `--card` URL). */
  cardUrl: string;
  /** The card's own words, when its card was read (`--enrich`, `--card`). */
  creatorWords: CreatorWords | undefined;
};
