import { z } from "zod";
import { BuyerError } from "../../sdk/buyerError.ts";
import { formatAmount } from "../../sdk/formatAmount.ts";
import { readBalance } from "../../sdk/readBalance.ts";
import { sendEscrowTransaction } from "../../sdk/sendEscrowTransaction.ts";
import { confirmMoneyMove } from "../confirmMoneyMove.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { amount, amountView, common, sentShape } from "./toolShapes.ts";

/**
 * Registers `set_spend_limit`: the escrow's own limit on what may be debited from the buyer per period, enforced by
 * the contract whatever signs.
 * @example registerSetSpendLimit(createToolContext({ server, config, source, log }))
 */
export function registerSetSpendLimit(tool: ToolContext): void {
  tool.server.registerTool(
    "set_spend_limit",
    {
      title: "Set the on-chain spend limit",
      description:
        "Sets the escrow's limit on what may be debited from the buyer in each period of periodSeconds (limit 0 removes it). The contract enforces it on every debit, whatever this server's own SPEND_* settings say. Removing or loosening it (no lower, over a period no longer) is in force at once; tightening it waits the escrow's delay (one day, so no payment already accepted can fail) and answers inForce: false with effectiveAt: call set_spend_limit again with the same values from then to put it in force. While SPEND_CONFIRM_ABOVE is set, removing or loosening it (or cancelling a pending tighter one) asks the user first (MCP elicitation) and sends nothing unless they accept. A transaction the buyer's key sends itself: its wallet needs native coin for gas.",
      inputSchema: z.strictObject({
        limit: amount
          .regex(/^[0-9]{1,78}$/, "a limit is a whole number of base units")
          .describe("Base units per period; 0 removes the limit"),
        periodSeconds: z
          .int()
          .min(0)
          .describe("The period's length in seconds (e.g. 86400 for a day); required unless limit is 0"),
      }),
      outputSchema: {
        ...common,
        ...sentShape,
        message: z.string(),
        inForce: z.boolean(),
        limit: amountView,
        periodSeconds: z.string(),
        effectiveAt: z.string().optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    (input, extra) =>
      tool.run(async (env) => {
        const { chain, account } = tool.buyerOf(env);
        const limit = BigInt(input.limit);
        const period = BigInt(input.periodSeconds);
        if (limit > 0n && period === 0n)
          throw new BuyerError(
            "invalid_request",
            "periodSeconds must be positive when limit is not 0 (e.g. 86400 for a day)",
          );
        const before = await readBalance(chain, account.address);
        const now = (await chain.publicClient.getBlock({ blockTag: "latest" })).timestamp;
        const pending = before.spendLimit.pending;
        const applyDue =
          pending !== null && pending.limit === limit && pending.periodSeconds === period && now >= pending.effectiveAt;
        const current = before.spendLimit;
        // What the escrow puts in force at once (setSpendLimit): no limit, or one no lower over a period no longer.
        const atOnce =
          limit === 0n || (current.limit !== 0n && limit >= current.limit && period <= current.periodSeconds);
        const changes =
          limit !== current.limit || (limit !== 0n && period !== current.periodSeconds) || pending !== null;
        if (!applyDue && atOnce && changes) {
          const inForce =
            current.limit === 0n ? "none" : `${formatAmount.text(current.limit)} per ${current.periodSeconds} s`;
          const cancels = pending
            ? `; it also cancels the requested change to ${formatAmount.text(pending.limit)} per ${pending.periodSeconds} s`
            : "";
          const change =
            limit === 0n
              ? "no on-chain spend limit"
              : `an on-chain spend limit of ${formatAmount.text(limit)} per ${period} s`;
          await confirmMoneyMove(tool, env, {
            action: `loosening the escrow's on-chain spend limit to ${change}`,
            message: `Loosen the escrow's spend limit to ${change}? It is in force at once (in force now: ${inForce}${cancels}). The contract enforces this limit on every debit, whatever signs: it is the backstop if this machine's spend ledger is forged.`,
            confirmTitle: limit === 0n ? "Remove the on-chain limit" : "Loosen the on-chain limit",
            relatedRequestId: extra.requestId,
          });
        }
        const { transaction, block } = await sendEscrowTransaction(
          chain,
          account,
          applyDue
            ? { functionName: "applySpendLimit", args: [account.address] }
            : { functionName: "setSpendLimit", args: [limit, period] },
        );
        const after = await readBalance(chain, account.address);
        const inForce = after.spendLimit.limit === limit && (limit === 0n || after.spendLimit.periodSeconds === period);
        const shown = limit === 0n ? "no on-chain spend limit" : `${formatAmount.text(limit)} per ${period} s`;
        const effectiveAt = after.spendLimit.pending
          ? new Date(Number(after.spendLimit.pending.effectiveAt) * 1000).toISOString()
          : undefined;
        return toolAnswer(env.mode, {
          transaction,
          block: block.toString(),
          message: inForce
            ? `in force now: ${shown}`
            : `requested: ${shown}. A tighter limit waits the escrow's delay: call set_spend_limit again with the same values from ${effectiveAt} to put it in force; until then the limit in force stays ${before.spendLimit.limit === 0n ? "none" : `${formatAmount.text(before.spendLimit.limit)} per ${before.spendLimit.periodSeconds} s`}`,
          inForce,
          limit: formatAmount(limit),
          periodSeconds: period.toString(),
          ...(inForce ? {} : { effectiveAt }),
        });
      }),
  );
}
