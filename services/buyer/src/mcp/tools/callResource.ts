import { z } from "zod";
import { formatAmount } from "../../sdk/formatAmount.ts";
import { payResource } from "../payResource.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { amountView, common, receiptShape, requestBodyInput } from "./toolShapes.ts";

/**
 * Registers `call_resource`: pays for and calls any resource within the spend policy (`payResource`), its body one
 * JSON object, and takes its receipt as final (`acceptReceipt`). Each resource's own typed tool (`resourceTools`)
 * pays the same way.
 * @example registerCallResource(createToolContext({ server, config, source, log }))
 */
export function registerCallResource(tool: ToolContext): void {
  tool.server.registerTool(
    "call_resource",
    {
      title: "Pay for and call an endpoint (spends money)",
      description: `Calls a paid endpoint and pays for it from the buyer's escrow balance: pins the quote against the chain, checks the spend policy, signs a payment capped at the registered max (the cap: the most the call can debit; the metered price charged is at most it, see quote), calls, and checks the receipt: a confirmed one against its debit on chain, a committed one (the facilitator recorded the debit, which is final and lands on chain by validBefore: the relayer may hold it until its batch pays for its gas) against this payment's settlementId, without waiting for the mining. The spend policy applies to the cap: SPEND_MAX_PER_CALL refuses a call whose cap is above it, the hourly and daily budgets count each cap until the chain shows what was debited, and above SPEND_CONFIRM_ABOVE the user is asked to confirm (MCP elicitation) and nothing is paid unless they accept. Returns the answer, the receipt, the amount paid and the cap (base units and USDC), settlement ("confirmed" with the transaction hash, or "committed": list_payments shows it pending and recover_result names its transaction once mined). An error payment_unknown means the payment was sent and may have been debited: do not call again, call recover_result with its idemKey.${tool.scoped}`,
      inputSchema: z.strictObject({ resourceId: tool.targetInput, body: requestBodyInput }),
      outputSchema: {
        ...common,
        resourceId: z.string(),
        body: z.unknown(),
        amount: amountView,
        cap: amountView,
        settlement: z.enum(["committed", "confirmed"]),
        transaction: z.string().optional(),
        idemKey: z.string(),
        receipt: receiptShape,
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    (input, extra) =>
      tool.run(async (env) => {
        const resourceId = tool.target(input.resourceId);
        const { paid, settlement, transaction } = await payResource(tool, env, {
          resourceId,
          body: input.body ?? {},
          relatedRequestId: extra.requestId,
        });
        return toolAnswer(env.mode, {
          resourceId,
          body: paid.body,
          amount: formatAmount(paid.receipt.amount),
          cap: formatAmount(paid.terms.cap),
          settlement,
          ...(transaction ? { transaction } : {}),
          idemKey: paid.idemKey,
          receipt: paid.receipt,
        });
      }),
  );
}
