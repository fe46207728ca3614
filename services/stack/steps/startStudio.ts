import { keyEnv } from "../../keys/readKeySettings.ts";
import { answers, startPart } from "../childProcess.ts";
import { nodeService } from "../nodeService.ts";
import type { StackRun } from "../stackRun.ts";
import { contractsOf } from "../stackRun.ts";

/**
 * Starts the studio's HTTP service, paid for by `STUDIO_BUYER_KEY` or the first demo buyer; without either (external
 * mode) the studio is not started.
 * @example await startStudio(run)
 */
export async function startStudio(run: StackRun): Promise<void> {
  const { env } = run;
  const contracts = contractsOf(run);
  run.studioBuyer = env.STUDIO_BUYER_KEY ?? run.buyers[0]?.privateKey;
  if (!run.studioBuyer) {
    run.say("studio not started: external mode needs STUDIO_BUYER_KEY to pay its self-tests");
    return;
  }
  run.say(`starting the studio on ${run.urls.studio}`);
  run.parts.push(
    await startPart({
      ...run.supervise("studio", "background"),
      ...nodeService("services/studio/main.ts"),
      cwd: run.root,
      env: {
        PORT: String(env.STUDIO_PORT),
        STUDIO_TOKEN: run.tokens.studio,
        HOST_URL: run.urls.host,
        HOST_TOKEN: run.tokens.host,
        MARKETPLACE_URL: run.urls.marketplace,
        PUBLISH_TOKEN: run.tokens.publish,
        FACILITATOR_URL: run.urls.facilitator,
        RPC_URL: run.urls.rpc,
        TOKEN_ADDRESS: contracts.token,
        ESCROW_ADDRESS: contracts.escrow,
        REGISTRY_ADDRESS: contracts.registry,
        ...keyEnv("STUDIO_BUYER_KEY", run.studioBuyer),
      },
      ready: () => answers(`${run.urls.studio}/health`),
    }),
  );
}
