import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { Hex } from "viem";
import { BuyerError } from "../sdk/buyerError.ts";
import { formatAmount } from "../sdk/formatAmount.ts";
import type { PinnedCard } from "../sdk/readPinnedCard.ts";

/** How long the user has to answer the confirmation before the call is dropped unpaid. */
const CONFIRM_TIMEOUT_MS = 300_000;

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
 * Asks the user, through MCP elicitation (`elicitation/create`, a form with one `confirm` boolean), whether to pay
 * for a call whose cap is above `SPEND_CONFIRM_ABOVE`; resolves only when the user accepts with `confirm: true`.
 * Throws, before anything is held or signed: `confirmation_unavailable` when the client cannot be asked (no
 * elicitation capability), `payment_declined` on decline or an unchecked confirm, `payment_cancelled` on cancel,
 * no answer within five minutes, or a failed request.
 * @example await confirmPayment({ server, pinned, threshold: config.policy.confirmAbove })
 */
export async function confirmPayment(p: ConfirmPaymentParameters): Promise<void> {
  const { pinned, threshold } = p;
  const cap = formatAmount.text(pinned.cap);
  const above = `above SPEND_CONFIRM_ABOVE ${formatAmount.text(threshold)}`;
  if (!p.server.server.getClientCapabilities()?.elicitation)
    throw new BuyerError(
      "confirmation_unavailable",
      `this call can debit up to ${cap}, ${above}, and this MCP client cannot ask the user to confirm it (it does not support elicitation): nothing was signed or paid. Use a client that supports elicitation, or raise or unset SPEND_CONFIRM_ABOVE`,
    );
  const pricing = pinned.card.x402.pricing;
  const message = [
    `Pay for a call to ${JSON.stringify(pinned.card.name.slice(0, 80))} (resource ${pinned.resourceId as Hex}, ${pinned.card.url})?`,
    `It can debit at most ${cap} from your escrow balance, ${above}.`,
    `The price is metered on the response: ${formatAmount.text(pricing.base)} plus ${formatAmount.text(pricing.perKB)} per KB, never more than the cap.`,
  ].join(" ");
  const result = await p.server.server
    .elicitInput(
      {
        mode: "form",
        message,
        requestedSchema: {
          type: "object",
          properties: {
            confirm: {
              type: "boolean",
              title: `Pay up to ${formatAmount(pinned.cap).usdc}`,
              description: "Check to pay for this call",
              default: false,
            },
          },
          required: ["confirm"],
        },
      },
      { timeout: CONFIRM_TIMEOUT_MS, relatedRequestId: p.relatedRequestId },
    )
    .catch((error: Error) => {
      throw new BuyerError(
        "payment_cancelled",
        `the confirmation was not answered (${error.message.split("\n")[0]}): nothing was signed or paid`,
        { cause: error },
      );
    });
  if (result.action === "accept" && result.content?.confirm === true) return;
  if (result.action === "cancel")
    throw new BuyerError("payment_cancelled", "the user dismissed the confirmation: nothing was signed or paid");
  throw new BuyerError(
    "payment_declined",
    `the user declined to pay up to ${cap}: nothing was signed or paid; do not retry unless the user asks`,
  );
}
