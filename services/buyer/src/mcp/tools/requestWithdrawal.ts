import { z } from "zod";
import { BuyerError } from "../../sdk/buyerError.ts";
import { formatAmount } from "../../sdk/formatAmount.ts";
import { readBalance } from "../../sdk/readBalance.ts";
import { sendEscrowTransaction } from "../../sdk/sendEscrowTransaction.ts";
import { confirmMoneyMove } from "../confirmMoneyMove.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { amountInput, amountView, common, sentShape } from "./toolShapes.ts";

/**
 * Registers `request_withdrawal`: starts taking money out of the escrow (`requestWithdrawal`), which `withdraw` pays
 * out once the escrow's delay has passed.
 * @example registerRequestWithdrawal(createToolContext({ server, config, source, log }))
 */
export function registerRequestWithdrawal(tool: ToolContext): void {
  tool.server.registerTool(
    "request_withdrawal",
    {
      title: "Request a withdrawal from the escrow",
      description:
        "Asks the escrow to pay `amount` base units of the buyer's escrow balance back to its wallet. The money does not move now: the request unlocks after the escrow's withdrawal delay (one day, longer than any payment in flight may still be debited), and from then `withdraw` pays it out. Meanwhile it can no longer be spent on calls. A new request replaces an earlier pending one. Above SPEND_CONFIRM_ABOVE the user is asked to confirm first (MCP elicitation); nothing is sent unless they accept. A transaction the buyer's key sends itself: its wallet needs native coin for gas.",
      inputSchema: z.strictObject({ amount: amountInput }),
      outputSchema: {
        ...common,
        ...sentShape,
        message: z.string(),
        pendingWithdrawal: amountView,
        unlocksAt: z.string(),
        escrow: amountView,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    (input, extra) =>
      tool.run(async (env) => {
        const { chain, account } = tool.buyerOf(env);
        const amount = BigInt(input.amount);
        const before = await readBalance(chain, account.address);
        if (amount > before.escrow)
          throw new BuyerError(
            "insufficient_escrow",
            `the escrow balance is ${formatAmount.text(before.escrow)}, less than the ${formatAmount.text(amount)} asked: nothing was sent`,
          );
        const shown = formatAmount.text(amount);
        await confirmMoneyMove(tool, env, {
          amount,
          action: `requesting a withdrawal of ${shown}`,
          message: `Request a withdrawal of ${shown} from the escrow to your wallet ${account.address}? From now on it cannot be spent on calls, and it unlocks only after the escrow's delay (one day)${before.pendingWithdrawal > 0n ? `; it replaces the pending request of ${formatAmount.text(before.pendingWithdrawal)}` : ""}.`,
          confirmTitle: `Withdraw ${formatAmount(amount).usdc}`,
          relatedRequestId: extra.requestId,
        });
        const { transaction, block } = await sendEscrowTransaction(chain, account, {
          functionName: "requestWithdrawal",
          args: [amount],
        });
        const after = await readBalance(chain, account.address);
        const unlocksAt = new Date(Number(after.withdrawalUnlocksAt) * 1000).toISOString();
        const replaced =
          before.pendingWithdrawal > 0n
            ? ` It replaces the earlier request of ${formatAmount.text(before.pendingWithdrawal)}.`
            : "";
        return toolAnswer(env.mode, {
          transaction,
          block: block.toString(),
          message: `withdrawal of ${formatAmount.text(amount)} requested: it unlocks at ${unlocksAt}; call withdraw then to receive it in the wallet. Until then it stays in the escrow and cannot be spent.${replaced}`,
          pendingWithdrawal: formatAmount(after.pendingWithdrawal),
          unlocksAt,
          escrow: formatAmount(after.escrow),
        });
      }),
  );
}
