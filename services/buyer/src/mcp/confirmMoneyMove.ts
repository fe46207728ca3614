import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import { formatAmount } from "../sdk/formatAmount.ts";
import { askUserToConfirm } from "./askUserToConfirm.ts";
import type { BuyerEnvironment } from "./buyerEnvironment.ts";
import { requireSettings } from "./buyerEnvironment.ts";
import type { ToolContext } from "./tools/toolContext.ts";

/** A move of the buyer's own money, or a loosening of its on-chain limit, that the user may have to confirm. */
export type ConfirmMoneyMoveParameters = {
  /** The amount moved, in base units: asked only above SPEND_CONFIRM_ABOVE. Undefined: asked whatever the amount. */
  amount?: bigint;
  /** What the tool would do, as a clause: "deposit 2 USDC into the escrow". */
  action: string;
  /** The question, in a few sentences naming the amounts in base units and USDC. */
  message: string;
  confirmTitle: string;
  relatedRequestId?: RequestId | undefined;
};

/**
 * With `SPEND_CONFIRM_ABOVE` set, asks the user (`askUserToConfirm`) before a money tool deposits or requests a
 * withdrawal of more than it, or loosens the escrow's on-chain spend limit (any amount: that limit is the backstop
 * against a forged spend ledger); resolves at once when the setting is unset or the amount is within it. Throws,
 * before anything is signed or sent: `bad_setting` when SPEND_CONFIRM_ABOVE is malformed (fail-closed),
 * `confirmation_unavailable` for a client without elicitation, `confirmation_declined`, `confirmation_cancelled`.
 * @example await confirmMoneyMove(tool, env, { amount, action: "deposit 2 USDC into the escrow", message, confirmTitle })
 */
export async function confirmMoneyMove(
  tool: ToolContext,
  env: BuyerEnvironment,
  p: ConfirmMoneyMoveParameters,
): Promise<void> {
  requireSettings(env, ["SPEND_CONFIRM_ABOVE"]);
  const threshold = tool.config.policy.confirmAbove;
  if (threshold === undefined || (p.amount !== undefined && p.amount <= threshold)) return;
  const why =
    p.amount === undefined
      ? "needs the user's confirmation while SPEND_CONFIRM_ABOVE is set"
      : `moves ${formatAmount.text(p.amount)}, above SPEND_CONFIRM_ABOVE ${formatAmount.text(threshold)}`;
  await askUserToConfirm({
    server: tool.server,
    message: p.message,
    confirmTitle: p.confirmTitle,
    unavailable: `${p.action} ${why}, and this MCP client cannot ask the user to confirm it (it does not support elicitation): nothing was signed or sent. Use a client that supports elicitation, or raise or unset SPEND_CONFIRM_ABOVE`,
    nothingDone: `nothing was signed or sent (${p.action})`,
    codes: { declined: "confirmation_declined", cancelled: "confirmation_cancelled" },
    relatedRequestId: p.relatedRequestId,
  });
}
