import { join } from "node:path";
import { answers, startPart } from "../childProcess.ts";
import { nodeService } from "../nodeService.ts";
import type { StackRun } from "../stackRun.ts";
import { contractsOf } from "../stackRun.ts";

/**
 * Starts the resource host (handlers in workerd sandboxes, one gate per resource) with its deploy API's token.
 * @example await startHost(run)
 */
export async function startHost(run: StackRun): Promise<void> {
  const { env } = run;
  const contracts = contractsOf(run);
  run.say(`starting the resource host (workerd sandboxes) on ${run.urls.host}`);
  run.parts.push(
    await startPart({
      ...run.supervise("host", "paid path"),
      ...nodeService("services/host/main.ts"),
      cwd: run.root,
      env: {
        PORT: String(env.HOST_PORT),
        DATABASE_URL: env.DATABASE_URL,
        DATA_DIR: join(run.dataDir, "host"),
        HOST_TOKEN: run.tokens.host,
        FACILITATOR_URL: run.urls.facilitator,
        ESCROW_ADDRESS: contracts.escrow,
        TOKEN_ADDRESS: contracts.token,
        FACILITATOR_AUTH_SECRET: run.callerAuth ? env.CALLER_AUTH_SECRET : undefined,
        MARKETPLACE_URL: run.urls.marketplace,
      },
      ready: () => answers(`${run.urls.host}/ready`),
    }),
  );
}
