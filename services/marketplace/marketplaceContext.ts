import type { Logger } from "pino";
import type { Hex } from "viem";
import type { ProjectionsClient } from "../projections/createProjectionsClient.ts";
import type { Store } from "../store/store.ts";
import type { Catalog } from "./catalog/createCatalog.ts";
import type { CatalogSync } from "./catalog/syncCatalog.ts";
import type { MarketplaceChain } from "./chain.ts";
import type { MarketplaceConfig } from "./loadMarketplaceConfig.ts";
import type { ModerationRule } from "./publish/moderation.ts";
import type { PriceFloorReading } from "./publish/readPriceFloor.ts";

/** Everything the marketplace's operations use; routes only translate HTTP to these. */
export type MarketplaceContext = {
  config: MarketplaceConfig;
  store: Store;
  chain: MarketplaceChain;
  indexer: ProjectionsClient;
  catalog: Catalog;
  sync: CatalogSync;
  logger: Logger;
  moderationRules: readonly ModerationRule[];
  /** `GET /pricing/floor`'s reading of the floor, shared for a block (`sharedPriceFloor`). */
  priceFloor(): Promise<PriceFloorReading>;
  /** The marketplace's base URL ({base_url}), known once it listens. */
  publicUrl(): string;
};

/** The URL of a resource's card, served by the marketplace. */
export function cardUrlOf(publicUrl: string, resourceId: Hex): string {
  return `${publicUrl}/${resourceId}/.well-known/agent-card.json`;
}

/** The URL of the ERC-8004 registration file the marketplace serves for a resource's identity. */
export function registrationUrlOf(publicUrl: string, resourceId: Hex): string {
  return `${publicUrl}/agents/${resourceId}/registration.json`;
}
