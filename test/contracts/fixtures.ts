import { network } from "hardhat";
import { parseUnits } from "viem";
import StackModule from "../../ignition/modules/Stack.ts";

/** One in-process EDR chain (chain id 5042002) shared by a test file; fixtures snapshot and revert it. */
export const connection = await network.create();
export const { viem, ignition, networkHelpers } = connection;

/** 1 USDC in base units (6 decimals). */
export const USDC = parseUnits("1", 6);

/** Deploys the whole stack through the Ignition `Stack` module, with named roles. */
export async function deployStack() {
  const [admin, relayer, facilitator, treasury, creator, buyer, other, payout] = await viem.getWalletClients();
  const { token, identity, registry, escrow } = await ignition.deploy(StackModule, {
    parameters: {
      $global: {
        admin: admin!.account.address,
        treasury: treasury!.account.address,
        relayer: relayer!.account.address,
        facilitator: facilitator!.account.address,
      },
    },
  });
  const publicClient = await viem.getPublicClient();
  return {
    token,
    identity,
    registry,
    escrow,
    publicClient,
    accounts: { admin: admin!, relayer: relayer!, facilitator: facilitator!, treasury: treasury!, creator: creator!, buyer: buyer!, other: other!, payout: payout! },
  };
}
