import { createPublicClient, http } from "viem";
import { CHAIN_ID } from "../../protocol/constants.ts";
import { rpcAnswers, setAutomine, startPart } from "../childProcess.ts";
import type { StackRun } from "../stackRun.ts";

/**
 * Starts the embedded EDR chain (`services/chain/main.ts`, base fee floor 20 gwei) on loopback (not in external mode), mining at once while the stack is set
 * up, and checks that the chain has the test network's id.
 * @example await startChain(run)
 */
export async function startChain(run: StackRun): Promise<void> {
  const { env } = run;
  const rpcUrl = run.urls.rpc;
  if (run.external) run.say(`using the chain at ${rpcUrl}${env.NETWORK ? ` (${env.NETWORK})` : ""}`);
  else {
    run.say(
      `starting the local chain (EDR, chain id ${CHAIN_ID}, base fee floor 20 gwei, mining ${env.CHAIN_MINING === "interval" ? "every 500 ms" : "each transaction"}) on ${rpcUrl}`,
    );
    run.parts.push(
      await startPart({
        ...run.supervise("chain", "background"),
        // services/chain/main.ts: EDR with the test network's base fee floor, its unlocked development accounts on
        // loopback only.
        command: process.execPath,
        args: ["services/chain/main.ts"],
        env: { CHAIN_PORT: String(env.CHAIN_PORT), CHAIN_MINING: env.CHAIN_MINING },
        cwd: run.root,
        ready: () => rpcAnswers(rpcUrl),
      }),
    );
  }
  // With 500 ms blocks every set-up transaction would wait for a block (about two minutes in all): set-up is mined
  // at once, and the chain mines only every 500 ms from the moment the stack is ready.
  if (run.intervalMining) await setAutomine(rpcUrl, true);
  const chainId = await createPublicClient({ transport: http(rpcUrl) }).getChainId();
  if (chainId !== CHAIN_ID) throw new Error(`the chain at ${rpcUrl} has id ${chainId}, expected ${CHAIN_ID}`);
}
