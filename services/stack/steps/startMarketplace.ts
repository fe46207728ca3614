import { join } from "node:path";
import { keyEnv } from "../../keys/readKeySettings.ts";
import { answers, startPart } from "../childProcess.ts";
import { nodeService } from "../nodeService.ts";
import type { StackRun } from "../stackRun.ts";
import { contractsOf, keysOf } from "../stackRun.ts";

/**
 * Starts the marketplace (index, cards, publish pipeline) with the operator's key and the publish token; its probe
 * may reach loopback, where the stack's own resources are. It is ready only once the indexer is (`indexer`, started
 * beside it), and its deadline counts from then.
 * @example await startMarketplace(run, startIndexer(run))
 */
export async function startMarketplace(run: StackRun, indexer: Promise<void>): Promise<void> {
  const { env } = run;
  const contracts = contractsOf(run);
  run.say(`starting the marketplace on ${run.urls.marketplace}`);
  run.parts.push(
    await startPart({
      ...run.supervise("marketplace", "background"),
      ...nodeService("services/marketplace/main.ts"),
      cwd: run.root,
      env: {
        PORT: String(env.MARKETPLACE_PORT),
        RPC_URL: run.urls.rpc,
        INDEXER_URL: run.urls.indexer,
        TOKEN_ADDRESS: contracts.token,
        ESCROW_ADDRESS: contracts.escrow,
        REGISTRY_ADDRESS: contracts.registry,
        IDENTITY_ADDRESS: contracts.identity,
        ...keyEnv("OPERATOR_KEY", keysOf(run).publisher),
        PUBLISH_TOKEN: run.tokens.publish,
        DATABASE_URL: env.DATABASE_URL,
        DATA_DIR: join(run.dataDir, "marketplace"),
        // The stack's resources are served by its own host on 127.0.0.1.
        PROBE_ALLOW_PRIVATE: "on",
      },
      ready: () => answers(`${run.urls.marketplace}/ready`),
      after: { name: "indexer", ready: indexer },
    }),
  );
}
