import type { CreateMarketplaceOptions } from "../../services/marketplace/createMarketplace.ts";
import { createMarketplace } from "../../services/marketplace/createMarketplace.ts";
import { loadMarketplaceConfig } from "../../services/marketplace/loadMarketplaceConfig.ts";
import type { LocalChain } from "../chain/localChain.ts";
import { devKey, ROLE } from "../chain/localChain.ts";
import type { Indexer } from "../indexer/startIndexer.ts";

/** The development account the marketplace operator uses in tests (it only mints and submits; it never bonds). */
export const OPERATOR_INDEX = ROLE.publisher;

/** The publish token of test marketplaces. */
export const PUBLISH_TOKEN = "test-publish-token-0123456789";

/**
 * Starts a marketplace on a free port against a local chain and a running indexer; PGlite in memory unless the
 * environment passed names DATABASE_URL. The prober is off unless PROBE_INTERVAL_MS is given.
 * @example const marketplace = await startMarketplace(chain, indexer, { env: { MIN_BOND: "1" } })
 */
export async function startMarketplace(
  chain: LocalChain,
  indexer: Indexer,
  options: { env?: Record<string, string | undefined> } & CreateMarketplaceOptions = {},
) {
  const { env, ...rest } = options;
  const config = loadMarketplaceConfig({
    PORT: "0",
    RPC_URL: chain.rpcUrl,
    INDEXER_URL: indexer.url,
    TOKEN_ADDRESS: chain.addresses.token,
    ESCROW_ADDRESS: chain.addresses.escrow,
    REGISTRY_ADDRESS: chain.addresses.registry,
    IDENTITY_ADDRESS: chain.addresses.identity,
    OPERATOR_KEY: devKey(OPERATOR_INDEX),
    PUBLISH_TOKEN,
    DATA_DIR: "memory://",
    LOG_LEVEL: "silent",
    PROBE_INTERVAL_MS: "0",
    PROBE_TIMEOUT_MS: "2000",
    // Test resources listen on 127.0.0.1.
    PROBE_ALLOW_PRIVATE: "on",
    INDEX_WAIT_MS: "15000",
    ...env,
  });
  return createMarketplace(config, rest);
}
