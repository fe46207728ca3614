import { createMarketplace } from "./createMarketplace.ts";
import { loadMarketplaceConfig, MarketplaceConfigError } from "./loadMarketplaceConfig.ts";

/** Entry point: `node services/marketplace/main.ts`, configured by environment variables (see README). */
try {
  const marketplace = await createMarketplace(loadMarketplaceConfig(process.env));
  const shutdown = () => {
    marketplace.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
} catch (error) {
  if (error instanceof MarketplaceConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
