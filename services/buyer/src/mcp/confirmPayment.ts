import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { Hex } from "viem";
import { formatAmount } from "../sdk/formatAmount.ts";
import type { PinnedCard } from "../sdk/readPinnedCard.ts";
import { redactUrl } from "../sdk/redactUrl.ts";
import { askUserToConfirm } from "./askUserToConfirm.ts";

/** What the user is asked to confirm: the resource, its pinned card and the threshold that made the call ask. */
export type ConfirmPaymentParameters = {
  server: McpServer;
  pinned: PinnedCard;
  /** `SPEND_CONFIRM_ABOVE`: the cap is above it. */
  threshold: bigint;
  /** The tool call's request id, so the question travels with it. */
  relatedRequestId?: RequestId;
};

/**
 * Asks the user (`askUserToConfirm`) whether to pay for a call whose cap is above `SPEND_CONFIRM_ABOVE`, naming the
 * resource, its URL, the cap and the price terms; resolves only on a yes. Throws, before anything is held or signed:
 * `confirmation_unavailable` (no elicitation capability), `payment_declined`, `payment_cancelled`.
 * @example await confirmPayment({ server, pinned, threshold: config.policy.confirmAbove })
 */
export async function confirmPayment(p: ConfirmPaymentParameters): Promise<void> {
  const { pinned, threshold } = p;
  const cap = formatAmount.text(pinned.cap);
  const above = `above SPEND_CONFIRM_ABOVE ${formatAmount.text(threshold)}`;
  const pricing = pinned.card.x402.pricing;
  await askUserToConfirm({
    server: p.server,
    message: [
      `Pay for a call to ${JSON.stringify(pinned.card.name.slice(0, 80))} (resource ${pinned.resourceId as Hex}, ${redactUrl(pinned.card.url)})?`,
      `It can debit at most ${cap} from your escrow balance, ${above}.`,
      `The price is metered on the response: ${formatAmount.text(pricing.base)} plus ${formatAmount.text(pricing.perKB)} per KB, never more than the cap.`,
    ].join(" "),
    confirmTitle: `Pay up to ${formatAmount(pinned.cap).usdc}`,
    unavailable: `this call can debit up to ${cap}, ${above}, and this MCP client cannot ask the user to confirm it (it does not support elicitation): nothing was signed or paid. Use a client that supports elicitation, or raise or unset SPEND_CONFIRM_ABOVE`,
    nothingDone: `nothing was signed or paid (up to ${cap})`,
    codes: { declined: "payment_declined", cancelled: "payment_cancelled" },
    relatedRequestId: p.relatedRequestId,
  });
}
