import type { Hex } from "viem";
import type { Card } from "../../../protocol/schemas/card.ts";
import type { IndexRecord } from "../../../protocol/schemas/indexRecord.ts";
import { boundCategory } from "./boundCategory.ts";
import type { CreatorWords, Endpoint } from "./endpoint.ts";
import { normaliseSlug } from "./normaliseSlug.ts";

/** A card read on its own (`--card`): the card, its checked resource id and the URL it was read from. */
export type CardInput = { url: string; card: Card; resourceId: Hex };

/** Inputs of {@link projectEndpoints}. */
export type ProjectEndpointsParameters = {
  /** The index read with `--marketplace-url`, if any. */
  index: { marketplaceUrl: string; records: readonly IndexRecord[] } | undefined;
  /** Cards read for index records (`--enrich`), by resource id. */
  enriched: ReadonlyMap<Hex, Card>;
  cards: readonly CardInput[];
};

/** Hex digits of the resource id that name a card read alone: `endpoint-<digits>`. */
export const CARD_SLUG_DIGITS = 8;

/**
 * Projects index records and cards to one {@link Endpoint} per resource id: the index gives slug, category, price
 * and reputation; a card (read with `--enrich`, or given with `--card`) adds its creator's words, which are only ever
 * quoted. A card for a resource the index does not list stands alone: it is named from its resource id
 * (`endpoint-<first 8 hex digits>`), never from its own text, and priced from its `x402.pricing`.
 * @example projectEndpoints({ index: { marketplaceUrl, records }, enriched: new Map(), cards: [] })
 */
export function projectEndpoints(parameters: ProjectEndpointsParameters): Endpoint[] {
  const endpoints = new Map<Hex, Endpoint>();
  const { marketplaceUrl, records } = parameters.index ?? { marketplaceUrl: "", records: [] };
  for (const record of records) {
    const card = parameters.enriched.get(record.resourceId);
    endpoints.set(record.resourceId, {
      resourceId: record.resourceId,
      slug: normaliseSlug(record.slug),
      category: boundCategory(record.category),
      price: { base: record.pricing.base, perKB: record.pricing.perKB },
      reputation: record.reputation,
      health: record.health.score,
      marketplaceUrl,
      cardUrl: record.cardUrl,
      creatorWords: card && creatorWordsOf(card),
    });
  }
  for (const { url, card, resourceId } of parameters.cards) {
    const listed = endpoints.get(resourceId);
    endpoints.set(
      resourceId,
      listed
        ? { ...listed, creatorWords: creatorWordsOf(card) }
        : {
            resourceId,
            slug: `endpoint-${resourceId.slice(2, 2 + CARD_SLUG_DIGITS)}`,
            category: undefined,
            price: { base: card.x402.pricing.base, perKB: card.x402.pricing.perKB },
            reputation: undefined,
            health: card.health.score,
            marketplaceUrl: marketplaceOfCard(url, resourceId),
            cardUrl: url,
            creatorWords: creatorWordsOf(card),
          },
    );
  }
  return [...endpoints.values()].sort((a, b) =>
    a.resourceId < b.resourceId ? -1 : a.resourceId > b.resourceId ? 1 : 0,
  );
}

function creatorWordsOf(card: Card): CreatorWords {
  return {
    name: card.name,
    description: card.description,
    skills: card.skills.map(({ name, description, tags, examples }) => ({
      name,
      description,
      tags,
      examples: examples ?? [],
    })),
  };
}

/** The marketplace base URL a card is served under: everything before its `/<resourceId>` path segment. */
function marketplaceOfCard(url: string, resourceId: Hex): string {
  const parsed = new URL(url);
  const segments = parsed.pathname.split("/");
  const at = segments.findIndex((segment) => segment.toLowerCase() === resourceId);
  const base = at > 0 ? segments.slice(0, at).join("/") : "";
  return `${parsed.origin}${base}`;
}
