import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import { BuyerError } from "../sdk/buyerError.ts";

/** How long the user has to answer a confirmation before the action is dropped, nothing done. */
const CONFIRM_TIMEOUT_MS = 300_000;

/** One question to the user, and what each way of not saying yes is called. */
export type AskUserToConfirmParameters = {
  server: McpServer;
  /** What the user is asked, in a few sentences naming amounts in base units and USDC. */
  message: string;
  /** The title of the one checkbox, e.g. "Pay up to 0.05 USDC". */
  confirmTitle: string;
  /** Why the user must be asked and how to do without it: the message of `confirmation_unavailable`. */
  unavailable: string;
  /** What did not happen when the user does not say yes, e.g. "nothing was signed or paid". */
  nothingDone: string;
  /** The tool error codes of a decline (or an unchecked confirm) and of a cancel (or no answer). */
  codes: { declined: string; cancelled: string };
  /** The tool call's request id, so the question travels with it. */
  relatedRequestId?: RequestId | undefined;
};

/**
 * Asks the user, through MCP elicitation (`elicitation/create`, a form with one `confirm` boolean), and resolves only
 * when the user accepts with `confirm: true`. Throws `BuyerError`, before the caller does anything:
 * `confirmation_unavailable` when the client did not declare the elicitation capability, `codes.declined` on decline
 * or an unchecked confirm, `codes.cancelled` on cancel, no answer within five minutes, or a failed request.
 * @example await askUserToConfirm({ server, message, confirmTitle: "Pay up to 0.05 USDC", unavailable, nothingDone, codes })
 */
export async function askUserToConfirm(p: AskUserToConfirmParameters): Promise<void> {
  if (!p.server.server.getClientCapabilities()?.elicitation)
    throw new BuyerError("confirmation_unavailable", p.unavailable);
  const result = await p.server.server
    .elicitInput(
      {
        mode: "form",
        message: p.message,
        requestedSchema: {
          type: "object",
          properties: {
            confirm: { type: "boolean", title: p.confirmTitle, description: "Check to go ahead", default: false },
          },
          required: ["confirm"],
        },
      },
      { timeout: CONFIRM_TIMEOUT_MS, relatedRequestId: p.relatedRequestId },
    )
    .catch((error: Error) => {
      throw new BuyerError(
        p.codes.cancelled,
        `the confirmation was not answered (${error.message.split("\n")[0]}): ${p.nothingDone}`,
        { cause: error },
      );
    });
  if (result.action === "accept" && result.content?.confirm === true) return;
  if (result.action === "cancel")
    throw new BuyerError(p.codes.cancelled, `the user dismissed the confirmation: ${p.nothingDone}`);
  throw new BuyerError(p.codes.declined, `the user declined: ${p.nothingDone}; do not retry unless the user asks`);
}
