import { join } from "node:path";
import { readDeployment } from "../../../indexer/deployment.ts";
import { keyEnv } from "../../keys/readKeySettings.ts";
import { answers, startPart } from "../childProcess.ts";
import { nodeService } from "../nodeService.ts";
import type { StackRun } from "../stackRun.ts";
import { contractsOf, keysOf } from "../stackRun.ts";

/**
 * Starts the facilitator with its relayer pool, its escrow book replayed from the escrow's deployment block, its store in the data folder (or PostgreSQL) and caller auth as
 * configured (refusing to start with caller auth on but no secret).
 * @example await startFacilitator(run)
 */
export async function startFacilitator(run: StackRun): Promise<void> {
  const { env } = run;
  const contracts = contractsOf(run);
  const keys = keysOf(run);
  if (run.callerAuth && !env.CALLER_AUTH_SECRET)
    throw new Error("caller auth is on (the default in external mode) but CALLER_AUTH_SECRET is not set");
  run.say(`starting the facilitator on ${run.urls.facilitator}`);
  run.parts.push(
    await startPart({
      ...run.supervise("facilitator", "paid path"),
      ...nodeService("services/facilitator/main.ts"),
      cwd: run.root,
      env: {
        PORT: String(env.FACILITATOR_PORT),
        // Every endpoint RPC_URL names: the facilitator fails over between them.
        RPC_URL: env.RPC_URL ?? run.urls.rpc,
        ESCROW_ADDRESS: contracts.escrow,
        // The embedded chain mining a block per transaction is one node: a margin would keep its newest block (a
        // deposit just made) from the escrow book until more transactions come.
        ...(run.external || run.intervalMining ? {} : { ESCROW_BOOK_MARGIN_BLOCKS: "0" }),
        ESCROW_START_BLOCK: String(
          readDeployment(join(run.deploymentDir, "deployed_addresses.json")).PaymentEscrow.startBlock,
        ),
        REGISTRY_ADDRESS: contracts.registry,
        TOKEN_ADDRESS: contracts.token,
        INDEXER_URL: run.urls.indexer,
        ...keyEnv("RELAYER_KEYS", keys.relayers.join(",")),
        ...keyEnv("FACILITATOR_KEY", keys.facilitator),
        DATABASE_URL: env.DATABASE_URL,
        DATA_DIR: join(run.dataDir, "facilitator"),
        CALLER_AUTH: run.callerAuth ? "on" : "off",
        CALLER_AUTH_SECRET: env.CALLER_AUTH_SECRET,
        SETTLEMENT: env.SETTLEMENT,
        EXACT_COVERS_SETTLEMENT: env.EXACT_COVERS_SETTLEMENT,
        // Locally nobody pays for gas and a user watches each call's debit land: held debits only where it is set.
        HOLD_MAX_SECONDS: env.HOLD_MAX_SECONDS ?? (run.external ? undefined : "0"),
        NODE_ENV: run.external ? "production" : "development",
      },
      ready: () => answers(`${run.urls.facilitator}/ready`),
    }),
  );
}
