import { getAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { deployContracts } from "../deployContracts.ts";
import type { StackRun } from "../stackRun.ts";
import { keysOf } from "../stackRun.ts";

/**
 * Deploys the contracts through Ignition with the chosen roles (in external mode only what the deployment id's
 * record lacks, beside the network's stablecoin and ERC-8004 registry).
 * @example await deployStack(run)
 */
export async function deployStack(run: StackRun): Promise<void> {
  const { env } = run;
  const keys = keysOf(run);
  run.say("deploying contracts through Ignition");
  const contracts = await deployContracts({
    rpcUrl: run.urls.rpc,
    deploymentId: run.deploymentId,
    fresh: !run.external,
    deployerKey: run.external ? keys.deployer : undefined,
    roles: {
      admin: privateKeyToAccount(keys.deployer).address,
      treasury: keys.treasury,
      relayers: keys.relayers.map((k) => privateKeyToAccount(k).address),
      facilitator: privateKeyToAccount(keys.facilitator).address,
      publisher: privateKeyToAccount(keys.publisher).address,
    },
    existing:
      run.external && env.TOKEN_ADDRESS && env.IDENTITY_ADDRESS
        ? { token: getAddress(env.TOKEN_ADDRESS), identity: getAddress(env.IDENTITY_ADDRESS) }
        : undefined,
  });
  run.contracts = contracts;
  run.say(
    `contracts: escrow ${contracts.escrow}, registry ${contracts.registry}, token ${contracts.token}, identity ${contracts.identity}`,
  );
}
