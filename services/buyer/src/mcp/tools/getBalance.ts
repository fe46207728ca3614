import { z } from "zod";
import { BuyerError } from "../../sdk/buyerError.ts";
import { readBalance } from "../../sdk/readBalance.ts";
import { requireSettings } from "../buyerEnvironment.ts";
import { remainingBudgets } from "../spendPolicy.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { amount, common } from "./toolShapes.ts";

/**
 * Registers `get_balance`: the buyer's funds, the on-chain spend limit and each budget of the spend policy.
 * @example registerGetBalance(createToolContext({ server, config, source, log }))
 */
export function registerGetBalance(tool: ToolContext): void {
  tool.server.registerTool(
    "get_balance",
    {
      title: "Buyer balance and budgets",
      description:
        "The buyer's address (never the key), stablecoin in the wallet, balance in escrow, pending withdrawal, the on-chain spend limit in force and a pending tightening of it, and each budget of the spend policy: spent (what the chain debited this key in the window), held (caps of payments signed whose outcome the chain has not told yet) and remaining.",
      inputSchema: {},
      outputSchema: {
        ...common,
        address: z.string(),
        wallet: amount,
        escrow: amount,
        pendingWithdrawal: amount,
        spendLimit: z.object({
          limit: amount,
          periodSeconds: z.string(),
          spentInWindow: amount,
          pending: z.object({ limit: amount, periodSeconds: z.string(), effectiveAt: z.string() }).nullable(),
        }),
        policy: z.record(z.string(), z.unknown()),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    () =>
      tool.run(async (env) => {
        requireSettings(env, ["BUYER_PRIVATE_KEY"]);
        const chain = tool.chainOf(env);
        if (!env.account || !env.ledger) throw new BuyerError("key_unavailable", "BUYER_PRIVATE_KEY is not set");
        const balance = await readBalance(chain, env.account.address);
        return toolAnswer(env.mode, {
          address: balance.address,
          wallet: balance.wallet.toString(),
          escrow: balance.escrow.toString(),
          pendingWithdrawal: balance.pendingWithdrawal.toString(),
          spendLimit: {
            limit: balance.spendLimit.limit.toString(),
            periodSeconds: balance.spendLimit.periodSeconds.toString(),
            spentInWindow: balance.spendLimit.spentInWindow.toString(),
            pending: balance.spendLimit.pending && {
              limit: balance.spendLimit.pending.limit.toString(),
              periodSeconds: balance.spendLimit.pending.periodSeconds.toString(),
              effectiveAt: balance.spendLimit.pending.effectiveAt.toString(),
            },
          },
          policy: JSON.parse(JSON.stringify(remainingBudgets(tool.config.policy, await env.ledger.read(), Date.now()))),
        });
      }),
  );
}
