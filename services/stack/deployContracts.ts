import { rmSync } from "node:fs";
import { network } from "hardhat";
import type { Address, Hex } from "viem";
import { getAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import ExternalStackModule from "../../ignition/modules/ExternalStack.ts";
import StackModule from "../../ignition/modules/Stack.ts";
import { deploymentDir } from "./deploymentDir.ts";

/** Addresses of the deployed system: the one place services learn them from. */
export type ContractAddresses = { token: Address; identity: Address; registry: Address; escrow: Address };

export type DeployContractsParameters = {
  rpcUrl: string;
  /** Ignition deployment id; its folder under ignition/deployments holds deployed_addresses.json. */
  deploymentId: string;
  /**
   * Who administers, receives fees, relays debits (every key of the pool), records strikes and submits `registerFor`
   * (the marketplace).
   */
  roles: { admin: Address; treasury: Address; relayers: readonly Address[]; facilitator: Address; publisher: Address };
  /** Deployer key for a remote chain; the local node's unlocked accounts are used when absent. */
  deployerKey?: Hex;
  /** Existing stablecoin and ERC-8004 registry (test network): only the registry and escrow are deployed. */
  existing?: { token: Address; identity: Address };
  /** Start from scratch (the local chain is new on every start). */
  fresh?: boolean;
};

/**
 * Grants RELAYER_ROLE to the pool's keys beyond the first (Ignition's module grants the first): each is checked first,
 * so a rerun sends nothing, and a key added to `RELAYER_KEYS` later is granted on the next start. Sent by the deployer.
 */
async function grantRelayerPool(
  connection: Awaited<ReturnType<typeof network.create>>,
  escrowAddress: Address,
  relayers: readonly Address[],
): Promise<void> {
  if (relayers.length === 0) return;
  const escrow = await connection.viem.getContractAt("PaymentEscrow", escrowAddress);
  const publicClient = await connection.viem.getPublicClient();
  const role = await escrow.read.RELAYER_ROLE();
  for (const relayer of relayers) {
    if (await escrow.read.hasRole([role, relayer])) continue;
    const receipt = await publicClient.waitForTransactionReceipt({
      hash: await escrow.write.grantRole([role, relayer]),
    });
    if (receipt.status !== "success") throw new Error(`granting RELAYER_ROLE to ${relayer} reverted`);
  }
}

/**
 * Deploys the contracts through Ignition (the only way they get deployed). Ignition records what it did, so a
 * rerun against the same chain deploys only what is missing.
 * @example const addresses = await deployContracts({ rpcUrl, deploymentId: "local-stack", roles, fresh: true })
 */
export async function deployContracts(p: DeployContractsParameters): Promise<ContractAddresses> {
  if (p.fresh) rmSync(deploymentDir(p.deploymentId), { recursive: true, force: true });
  const connection = await network.create({
    network: "localhost",
    override: { url: p.rpcUrl, ...(p.deployerKey ? { accounts: [p.deployerKey] } : {}) },
  });
  try {
    const [relayer, ...moreRelayers] = p.roles.relayers;
    if (!relayer) throw new Error("deployContracts needs at least one relayer");
    const { relayers: _pool, ...roles } = p.roles;
    const $global = {
      ...roles,
      relayer,
      admin: p.deployerKey ? privateKeyToAccount(p.deployerKey).address : p.roles.admin,
    };
    const options = { deploymentId: p.deploymentId, displayUi: false } as const;
    const deployed = p.existing
      ? await connection.ignition.deploy(ExternalStackModule, {
          ...options,
          parameters: {
            $global,
            ExternalStack: { tokenAddress: p.existing.token, identityAddress: p.existing.identity },
          },
        })
      : await connection.ignition.deploy(StackModule, { ...options, parameters: { $global } });
    await grantRelayerPool(connection, getAddress(deployed.escrow.address), moreRelayers);
    return {
      token: getAddress(deployed.token.address),
      identity: getAddress(deployed.identity.address),
      registry: getAddress(deployed.registry.address),
      escrow: getAddress(deployed.escrow.address),
    };
  } finally {
    await connection.close();
  }
}
