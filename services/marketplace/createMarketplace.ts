import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { pino } from "pino";
import { listen } from "../http/listen.ts";
import { createProjectionsClient } from "../projections/createProjectionsClient.ts";
import { openStore } from "../store/openStore.ts";
import { createCatalog } from "./catalog/createCatalog.ts";
import { startCatalogSync } from "./catalog/syncCatalog.ts";
import { createMarketplaceChain } from "./chain.ts";
import { createMarketplaceApp } from "./createMarketplaceApp.ts";
import type { MarketplaceConfig } from "./loadMarketplaceConfig.ts";
import type { MarketplaceContext } from "./marketplaceContext.ts";
import { cardUrlOf } from "./marketplaceContext.ts";
import type { Prober } from "./prober/startProber.ts";
import { startProber } from "./prober/startProber.ts";
import type { ModerationRule } from "./publish/moderation.ts";
import { defaultModerationRules } from "./publish/moderation.ts";
import { sharedPriceFloor } from "./publish/readPriceFloor.ts";
import { MIGRATIONS } from "./store/migrations.ts";

export type CreateMarketplaceOptions = {
  logger?: Logger;
  /** Moderation rules; the defaults (category format, lengths, control characters, blocklist) when absent. */
  moderationRules?: readonly ModerationRule[];
};

/** A running marketplace: its URL, its context and prober (for tests and tools), and `stop`. */
export type Marketplace = {
  url: string;
  server: Server;
  ctx: MarketplaceContext;
  prober: Prober;
  stop(): Promise<void>;
};

/**
 * Builds and starts the marketplace from validated configuration: store (migrated), chain access with the operator
 * key, the indexer client, the in-memory catalog and its sync, the prober, and the HTTP server.
 * @example const marketplace = await createMarketplace(loadMarketplaceConfig(process.env))
 */
export async function createMarketplace(
  config: MarketplaceConfig,
  options: CreateMarketplaceOptions = {},
): Promise<Marketplace> {
  const logger =
    options.logger ??
    pino({
      name: "marketplace",
      level: config.LOG_LEVEL,
      redact: { paths: ["authorization", "*.authorization", "signature", "*.signature"], censor: "[redacted]" },
    });
  const store = await openStore({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    schema: config.DATABASE_SCHEMA,
    migrations: MIGRATIONS,
  });
  const chain = createMarketplaceChain({
    rpcUrl: config.RPC_URL,
    operatorKey: config.OPERATOR_KEY as `0x${string}`,
    addresses: {
      token: config.TOKEN_ADDRESS,
      escrow: config.ESCROW_ADDRESS,
      registry: config.REGISTRY_ADDRESS,
      identity: config.IDENTITY_ADDRESS,
    },
  });
  const indexer = createProjectionsClient(config.INDEXER_URL);
  let publicUrl = config.PUBLIC_URL?.replace(/\/+$/, "") ?? "";
  const catalog = createCatalog({
    cardUrlOf: (resourceId) => cardUrlOf(publicUrl, resourceId),
    uptimeWindow: config.UPTIME_WINDOW,
    healthWindow: config.HEALTH_WINDOW,
    onInvalid: (resourceId, problem) =>
      logger.warn({ resourceId, problem }, "index record fails its schema; not listed"),
    onUnsearchable: (resourceId, problem) =>
      logger.warn({ resourceId, problem }, "stored card fails its schema; listed, but q never finds it"),
  });
  const ctx: MarketplaceContext = {
    config,
    store,
    chain,
    indexer,
    catalog,
    sync: undefined as never,
    logger,
    moderationRules: options.moderationRules ?? defaultModerationRules(config.MODERATION_BLOCKLIST),
    priceFloor: sharedPriceFloor(chain, config),
    publicUrl: () => publicUrl,
  };
  const server = await listen(createMarketplaceApp(ctx), config.PORT, config.HOST);
  const { port } = server.address() as AddressInfo;
  publicUrl ||= `http://${config.HOST}:${port}`;
  ctx.sync = startCatalogSync({
    catalog,
    indexer,
    store,
    logger,
    intervalMs: config.SYNC_INTERVAL_MS,
    resyncIntervalMs: config.RESYNC_INTERVAL_MS,
  });
  const prober = startProber({ config, catalog, chain, store, logger });
  logger.info(
    { port, publicUrl, store: store.kind, operator: chain.operator, publishing: Boolean(config.PUBLISH_TOKEN) },
    "marketplace listening",
  );

  return {
    url: `http://${config.HOST}:${port}`,
    server,
    ctx,
    prober,
    async stop() {
      await prober.stop();
      await ctx.sync.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await store.close();
    },
  };
}
