import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Address, Hex, LocalAccount } from "viem";
import { isChainUnavailable } from "../../../../protocol/chain.ts";
import type { BuyerChain } from "../../sdk/buyerChain.ts";
import { BuyerError } from "../../sdk/buyerError.ts";
import type { SpendLedger } from "../../sdk/openSpendLedger.ts";
import type { PinnedCard } from "../../sdk/readPinnedCard.ts";
import type { BuyerEnvironment, EnvironmentSource } from "../buyerEnvironment.ts";
import { requireSettings } from "../buyerEnvironment.ts";
import type { BuyerConfig } from "../loadBuyerConfig.ts";
import type { ServerLog } from "../serverLog.ts";
import { toolError } from "../toolResult.ts";
import { resourceIdInput } from "./toolShapes.ts";

/** A card's money fields as a tool answers them. */
export type PinnedView = { resourceId: Hex; escrow: Address; asset: Address; cap: string; creator: Address };

/** What every tool of the buyer server shares: the server, the settings, the scope and how a tool call runs. */
export type ToolContext = {
  server: McpServer;
  config: BuyerConfig;
  log: ServerLog;
  /** Where the network comes from (live settings, or the demo started on first use). */
  source: EnvironmentSource;
  /** A sentence for tool descriptions naming the scope, or "". */
  scoped: string;
  inScope(resourceId: string): boolean;
  /** The resource a call is about: the argument, or the scope's only resource; refused outside the scope. */
  target(resourceId: string | undefined): Hex;
  /** The resource id argument: optional when the scope has exactly one resource. */
  targetInput: typeof resourceIdInput | ReturnType<typeof resourceIdInput.optional>;
  chainOf(env: BuyerEnvironment): BuyerChain;
  /** The chain, the buyer's key and its spend ledger; refused with the setting's name when one is missing. */
  buyerOf(env: BuyerEnvironment): { chain: BuyerChain; account: LocalAccount; ledger: SpendLedger };
  /** Runs a tool's work against the environment; an expected failure comes back as a tool error, never a throw. */
  run(work: (env: BuyerEnvironment) => Promise<CallToolResult>): Promise<CallToolResult>;
  pinnedView(pinned: PinnedCard): PinnedView;
};

/**
 * The context the buyer server's tools register with.
 * @example const context = createToolContext({ server, config, source, log })
 */
export function createToolContext(p: {
  server: McpServer;
  config: BuyerConfig;
  source: EnvironmentSource;
  log: ServerLog;
}): ToolContext {
  const { config, source, log } = p;
  const scope = config.scope;
  const inScope = (id: string) => !scope || scope.includes(id.toLowerCase() as Hex);
  return {
    server: p.server,
    config,
    log,
    source,
    scoped: scope ? ` Limited to ${scope.length === 1 ? "resource" : "resources"} ${scope.join(", ")}.` : "",
    inScope,
    target(id) {
      const chosen = id ?? (scope?.length === 1 ? scope[0] : undefined);
      if (!chosen) throw new BuyerError("invalid_request", "resourceId is required");
      if (!inScope(chosen))
        throw new BuyerError(
          "out_of_scope",
          `resource ${chosen} is outside this server's scope (SERVICE_RESOURCE_IDS)`,
        );
      return chosen.toLowerCase() as Hex;
    },
    targetInput: scope?.length === 1 ? resourceIdInput.optional() : resourceIdInput,
    chainOf(env) {
      requireSettings(env, ["RPC_URL", "ESCROW_ADDRESS"]);
      if (!env.chain) throw new BuyerError("bad_setting", "RPC_URL and ESCROW_ADDRESS are required");
      return env.chain;
    },
    buyerOf(env) {
      requireSettings(env, ["BUYER_PRIVATE_KEY"]);
      const chain = this.chainOf(env);
      if (!env.account || !env.ledger) throw new BuyerError("key_unavailable", "BUYER_PRIVATE_KEY is not set");
      return { chain, account: env.account, ledger: env.ledger };
    },
    async run(work) {
      let env: BuyerEnvironment | undefined;
      try {
        requireSettings({ mode: config.mode, problems: config.problems }, ["SERVICE_RESOURCE_IDS"]);
        env = await source.get();
        return await work(env);
      } catch (error) {
        if (!(error instanceof BuyerError) && !isChainUnavailable(error))
          log(`service-buyer: ${(error as Error).stack ?? error}`);
        return toolError(env?.mode ?? config.mode, error);
      }
    },
    pinnedView: (pinned) => ({
      resourceId: pinned.resourceId,
      escrow: pinned.escrow,
      asset: pinned.asset,
      cap: pinned.cap.toString(),
      creator: pinned.creator,
    }),
  };
}
