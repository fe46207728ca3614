import type { LocalAccount } from "viem";
import type { BuyerChain } from "../sdk/buyerChain.ts";
import { buyerChain } from "../sdk/buyerChain.ts";
import { BuyerError } from "../sdk/buyerError.ts";
import type { SpendLedger } from "../sdk/openSpendLedger.ts";
import { openSpendLedger } from "../sdk/openSpendLedger.ts";
import type { BuyerConfig, Setting } from "./loadBuyerConfig.ts";

/** What the tools run against: the live network, or the in-process demo. */
export type BuyerEnvironment = {
  mode: "demo" | "live";
  chain?: BuyerChain;
  marketplaceUrl?: string;
  facilitatorUrl?: string;
  account?: LocalAccount;
  ledger?: SpendLedger;
  problems: BuyerConfig["problems"];
};

/** Starts whatever the environment needs (the demo starts its in-process system here) and resolves to it. */
export type EnvironmentSource = { get(): Promise<BuyerEnvironment>; close(): Promise<void> };

/**
 * Throws the tool error naming the first missing or malformed setting among `names`.
 * @example requireSettings(env, ["BUYER_PRIVATE_KEY"])
 */
export function requireSettings(env: BuyerEnvironment, names: Setting[]): void {
  for (const name of names) {
    const problem = env.problems[name];
    if (problem) throw new BuyerError(name === "BUYER_PRIVATE_KEY" ? "key_unavailable" : "bad_setting", problem);
  }
}

/**
 * The live environment, straight from the settings: nothing starts, nothing is contacted until a tool runs.
 * @example const source = liveEnvironment(loadBuyerConfig(process.env))
 */
export function liveEnvironment(config: BuyerConfig): EnvironmentSource {
  const chain =
    config.rpcUrl && config.escrow
      ? buyerChain({
          rpcUrl: config.rpcUrl,
          escrow: config.escrow,
          allowPrivateAddresses: config.allowPrivateNetwork,
        })
      : undefined;
  const environment: BuyerEnvironment = {
    mode: "live",
    chain,
    marketplaceUrl: config.marketplaceUrl,
    facilitatorUrl: config.facilitatorUrl,
    account: config.account,
    ledger:
      chain && config.account
        ? openSpendLedger({ dir: config.dataDir, chain, buyer: config.account.address })
        : undefined,
    problems: config.problems,
  };
  return { get: async () => environment, close: async () => {} };
}
