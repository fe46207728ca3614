import { z } from "zod";
import { BuyerError } from "../../sdk/buyerError.ts";
import { formatAmount } from "../../sdk/formatAmount.ts";
import { readBalance } from "../../sdk/readBalance.ts";
import { sendEscrowTransaction } from "../../sdk/sendEscrowTransaction.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { amountView, common, sentShape } from "./toolShapes.ts";

/**
 * Registers `withdraw`: pays a pending withdrawal whose delay has passed out of the escrow to the buyer's wallet.
 * @example registerWithdraw(createToolContext({ server, config, source, log }))
 */
export function registerWithdraw(tool: ToolContext): void {
  tool.server.registerTool(
    "withdraw",
    {
      title: "Complete a withdrawal",
      description:
        "Pays the withdrawal requested with request_withdrawal out of the escrow to the buyer's wallet, once its delay has passed (the smaller of the amount requested and the escrow balance). Before then it answers withdrawal_locked with the time it unlocks; without a request, no_withdrawal. A transaction the buyer's key sends itself: its wallet needs native coin for gas.",
      inputSchema: z.strictObject({}),
      outputSchema: {
        ...common,
        ...sentShape,
        message: z.string(),
        withdrawn: amountView,
        wallet: amountView,
        escrow: amountView,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    () =>
      tool.run(async (env) => {
        const { chain, account } = tool.buyerOf(env);
        const before = await readBalance(chain, account.address);
        if (before.withdrawalUnlocksAt === 0n)
          throw new BuyerError(
            "no_withdrawal",
            "no withdrawal is pending: call request_withdrawal first (it unlocks a day later)",
          );
        const now = (await chain.publicClient.getBlock({ blockTag: "latest" })).timestamp;
        if (now < before.withdrawalUnlocksAt) {
          const unlocksAt = new Date(Number(before.withdrawalUnlocksAt) * 1000).toISOString();
          const hours = (Number(before.withdrawalUnlocksAt - now) / 3600).toFixed(1);
          throw new BuyerError(
            "withdrawal_locked",
            `the withdrawal of ${formatAmount.text(before.pendingWithdrawal)} unlocks at ${unlocksAt} (in ${hours} h, by the chain's clock): call withdraw again then; nothing was sent`,
          );
        }
        const { transaction, block } = await sendEscrowTransaction(chain, account, {
          functionName: "withdraw",
          args: [],
        });
        const after = await readBalance(chain, account.address);
        // biome-ignore lint/complexity/useMathMinMax: bigints, which Math.min does not take
        const withdrawn = before.pendingWithdrawal < before.escrow ? before.pendingWithdrawal : before.escrow;
        return toolAnswer(env.mode, {
          transaction,
          block: block.toString(),
          message: `withdrew ${formatAmount.text(withdrawn)} from the escrow to the wallet ${account.address}`,
          withdrawn: formatAmount(withdrawn),
          wallet: formatAmount(after.wallet),
          escrow: formatAmount(after.escrow),
        });
      }),
  );
}
