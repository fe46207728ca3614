import { join } from "node:path";
import { setAsideIncompatible } from "../../../indexer/ponder/pgliteDataDir.ts";
import { ponderCommand } from "../../../indexer/ponder/ponderCommand.ts";
import { seedPgliteDir } from "../../store/pgliteCluster.ts";
import { answers, startPart } from "../childProcess.ts";
import { SERVICE_NODE_FLAGS } from "../nodeService.ts";
import type { StackRun } from "../stackRun.ts";

/**
 * Starts Ponder on the deployment (PGlite in the data folder, seeded with a fresh cluster like the services' own, or
 * PostgreSQL with a views schema), with this project's patches preloaded, and waits until it is ready.
 * @example await startIndexer(run)
 */
export async function startIndexer(run: StackRun): Promise<void> {
  const { env } = run;
  run.say(`starting the indexer (Ponder) on ${run.urls.indexer}`);
  const pgliteDir = join(run.dataDir, "ponder");
  const aside = env.DATABASE_URL ? null : setAsideIncompatible(pgliteDir);
  if (aside) run.say(`the indexer's data was written by another PostgreSQL version: kept in ${aside}; re-indexing`);
  if (!env.DATABASE_URL) await seedPgliteDir(pgliteDir);
  run.parts.push(
    await startPart({
      ...run.supervise("indexer", "background"),
      ...ponderCommand(
        [
          "--root",
          join(run.root, "indexer"),
          "--log-format",
          "json",
          "start",
          "--schema",
          "indexer",
          "--port",
          String(env.INDEXER_PORT),
          "--hostname",
          "127.0.0.1",
          ...(env.DATABASE_URL ? ["--views-schema", "indexer_views"] : []),
        ],
        { nodeArgs: SERVICE_NODE_FLAGS },
      ),
      cwd: join(run.root, "indexer"),
      env: {
        RPC_URL: run.urls.rpc,
        DEPLOYED_ADDRESSES: join(run.deploymentDir, "deployed_addresses.json"),
        PONDER_PGLITE_DIR: pgliteDir,
        PONDER_DISABLE_CACHE: run.external ? undefined : "1",
        PONDER_TELEMETRY_DISABLED: "true",
        DATABASE_URL: env.DATABASE_URL,
      },
      ready: () => answers(`${run.urls.indexer}/ready`),
    }),
  );
}
