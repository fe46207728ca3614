import type { Address, Hex } from "viem";
import { getAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { defined } from "../../protocol/defined.ts";
import { DEV_ROLE, devKey, isDevKey } from "../devAccounts.ts";
import type { StackKeys, StackRun } from "../stackRun.ts";

/**
 * Chooses who deploys, relays, records strikes and publishes: the development accounts on the embedded chain; in
 * external mode the keys given, refusing a well-known development key.
 * @example await chooseKeys(run)
 */
export async function chooseKeys(run: StackRun): Promise<void> {
  run.keys = run.external ? externalKeys(run) : localKeys();
}

function localKeys(): StackKeys {
  return {
    publisher: devKey(DEV_ROLE.publisher),
    deployer: devKey(DEV_ROLE.admin),
    relayers: [devKey(DEV_ROLE.relayer)],
    facilitator: devKey(DEV_ROLE.facilitator),
    treasury: privateKeyToAccount(devKey(DEV_ROLE.treasury)).address as Address,
  };
}

function externalKeys({ env }: StackRun): StackKeys {
  const relayers = (env.RELAYER_KEYS ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean) as Hex[];
  const all = [env.DEPLOYER_KEY, ...relayers, env.FACILITATOR_KEY, env.PUBLISHER_KEY].filter(Boolean) as string[];
  if (all.some(isDevKey))
    throw new Error("a well-known development key was given for an external chain; refusing to start");
  const missing = (
    ["DEPLOYER_KEY", "RELAYER_KEYS", "TREASURY_ADDRESS", "PUBLISHER_KEY", "ADMIN_ADDRESS", "DEPLOYMENT_DIR"] as const
  ).filter((k) => !env[k]);
  if (missing.length)
    throw new Error(
      `external mode (RPC_URL set) needs ${missing.join(", ")} (each key as hex or as NAME_FILE with NAME_PASSWORD_FILE; DEPLOYMENT_DIR: where the deployment record is kept, outside the checkout)`,
    );
  return {
    publisher: env.PUBLISHER_KEY as Hex,
    deployer: env.DEPLOYER_KEY as Hex,
    relayers,
    facilitator: (env.FACILITATOR_KEY ?? relayers[0]) as Hex,
    treasury: getAddress(defined(env.TREASURY_ADDRESS, "TREASURY_ADDRESS")),
  };
}
