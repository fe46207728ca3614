import { rmSync } from "node:fs";
import type { Address } from "viem";
import StackModule from "../../ignition/modules/Stack.ts";
import { runIgnition } from "../deploy/runIgnition.ts";

/** Addresses of the deployed system: the one place services learn them from. */
export type ContractAddresses = { token: Address; identity: Address; registry: Address; escrow: Address };

export type DeployLocalContractsParameters = {
  rpcUrl: string;
  /** Where the deployment record is written; emptied first (the local chain is new on every start). */
  deploymentDir: string;
  /** Who administers, receives fees, relays debits, records strikes and submits `registerFor` (the marketplace). */
  roles: { admin: Address; treasury: Address; relayer: Address; facilitator: Address; publisher: Address };
};

/**
 * Deploys everything on the embedded chain through Ignition's `Stack` module (a stablecoin and an identity registry of
 * its own, the registry and the escrow, the service roles granted), sent from the chain's unlocked first account.
 * External mode deploys through services/deploy/deploySystem.ts instead.
 * @example const addresses = await deployLocalContracts({ rpcUrl, deploymentDir, roles })
 */
export async function deployLocalContracts(p: DeployLocalContractsParameters): Promise<ContractAddresses> {
  rmSync(p.deploymentDir, { recursive: true, force: true });
  return runIgnition({
    rpcUrl: p.rpcUrl,
    deploymentDir: p.deploymentDir,
    module: StackModule,
    parameters: { $global: p.roles },
  });
}
