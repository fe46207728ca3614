import { formatEther } from "viem";
import { z } from "zod";
import { formatAmount } from "../../sdk/formatAmount.ts";
import { readBalance } from "../../sdk/readBalance.ts";
import { remainingBudgets } from "../spendPolicy.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { amountView, common } from "./toolShapes.ts";

const iso = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString();

/**
 * Registers `get_balance`: the buyer's funds, the on-chain spend limit and what each budget of the spend policy has
 * left.
 * @example registerGetBalance(createToolContext({ server, config, source, log }))
 */
export function registerGetBalance(tool: ToolContext): void {
  tool.server.registerTool(
    "get_balance",
    {
      title: "Buyer balance and budgets",
      description:
        "The buyer's address (never the key); stablecoin in the wallet (what deposit can move in); the escrow balance paid calls draw on; a pending withdrawal and when it unlocks; the native coin for gas (needed only for the transactions the buyer sends itself: request_withdrawal, withdraw, set_spend_limit, and deposit unless someone else submits it); the on-chain spend limit in force and a pending tightening; and each local budget of the spend policy (SPEND_*): spent (what the chain debited this key in the window), held (caps of payments signed whose outcome the chain has not told yet) and remaining. Amounts in base units and USDC.",
      inputSchema: z.strictObject({}),
      outputSchema: {
        ...common,
        address: z.string(),
        wallet: amountView,
        escrow: amountView,
        pendingWithdrawal: z.object({ amount: amountView, unlocksAt: z.string().nullable() }),
        gas: z.object({ wei: z.string(), native: z.string(), note: z.string().optional() }),
        spendLimit: z.object({
          limit: amountView,
          periodSeconds: z.string(),
          spentInWindow: amountView,
          pending: z.object({ limit: amountView, periodSeconds: z.string(), effectiveAt: z.string() }).nullable(),
        }),
        policy: z.record(z.string(), z.unknown()),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    () =>
      tool.run(async (env) => {
        const { chain, account, ledger } = tool.buyerOf(env);
        const balance = await readBalance(chain, account.address);
        const limit = balance.spendLimit;
        return toolAnswer(env.mode, {
          address: balance.address,
          wallet: formatAmount(balance.wallet),
          escrow: formatAmount(balance.escrow),
          pendingWithdrawal: {
            amount: formatAmount(balance.pendingWithdrawal),
            unlocksAt: balance.withdrawalUnlocksAt === 0n ? null : iso(balance.withdrawalUnlocksAt),
          },
          gas: {
            wei: balance.gas.toString(),
            native: formatEther(balance.gas),
            ...(balance.gas === 0n
              ? {
                  note: "no native coin: request_withdrawal, withdraw and set_spend_limit cannot be sent until the wallet receives some; paying for calls needs none",
                }
              : {}),
          },
          spendLimit: {
            limit: formatAmount(limit.limit),
            periodSeconds: limit.periodSeconds.toString(),
            spentInWindow: formatAmount(limit.spentInWindow),
            pending: limit.pending && {
              limit: formatAmount(limit.pending.limit),
              periodSeconds: limit.pending.periodSeconds.toString(),
              effectiveAt: iso(limit.pending.effectiveAt),
            },
          },
          policy: JSON.parse(JSON.stringify(remainingBudgets(tool.config.policy, await ledger.read(), Date.now()))),
        });
      }),
  );
}
