import { z } from "zod";
import { BuyerError } from "../../sdk/buyerError.ts";
import { formatAmount } from "../../sdk/formatAmount.ts";
import { payForCall } from "../../sdk/payForCall.ts";
import { PaymentUnknownError } from "../../sdk/paymentUnknownError.ts";
import { readPinnedCard } from "../../sdk/readPinnedCard.ts";
import { verifyDebit } from "../../sdk/verifyDebit.ts";
import { requireSettings } from "../buyerEnvironment.ts";
import { confirmPayment } from "../confirmPayment.ts";
import { requestBodyInput } from "../requestBodyInput.ts";
import { checkSpend, SpendRefusedError } from "../spendPolicy.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { amountView, common, receiptShape } from "./toolShapes.ts";

/** The settings of the spend policy: a paying call is refused while one of them is malformed. */
const SPEND_SETTINGS = [
  "SPEND_MAX_PER_CALL",
  "SPEND_CONFIRM_ABOVE",
  "SPEND_HOURLY_BUDGET",
  "SPEND_DAILY_BUDGET",
  "SPEND_ALLOW_RESOURCES",
  "SPEND_ALLOW_CREATORS",
] as const;

/**
 * Registers `call_resource`: pays for and calls a resource within the spend policy, and verifies the debit on chain.
 * @example registerCallResource(createToolContext({ server, config, source, log }))
 */
export function registerCallResource(tool: ToolContext): void {
  tool.server.registerTool(
    "call_resource",
    {
      title: "Pay for and call an endpoint (spends money)",
      description: `Calls a paid endpoint and pays for it from the buyer's escrow balance: pins the quote against the chain, checks the spend policy, signs a payment capped at the registered max (the cap: the most the call can debit; the metered price charged is at most it, see quote), calls, and verifies the receipt and the debit on chain. The spend policy applies to the cap: SPEND_MAX_PER_CALL refuses a call whose cap is above it, the hourly and daily budgets count each cap until the chain shows what was debited, and above SPEND_CONFIRM_ABOVE the user is asked to confirm (MCP elicitation) and nothing is paid unless they accept. Returns the answer, the receipt, the amount paid and the cap (base units and USDC) and the transaction hash. An error payment_unknown means the payment was sent and may have been debited: do not call again, call recover_result with its idemKey.${tool.scoped}`,
      inputSchema: { resourceId: tool.targetInput, body: requestBodyInput(tool.config) },
      outputSchema: {
        ...common,
        resourceId: z.string(),
        body: z.unknown(),
        amount: amountView,
        cap: amountView,
        transaction: z.string(),
        idemKey: z.string(),
        receipt: receiptShape,
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    (input, extra) =>
      tool.run(async (env) => {
        const id = tool.target(input.resourceId);
        requireSettings(env, ["BUYER_PRIVATE_KEY", ...SPEND_SETTINGS]);
        const chain = tool.chainOf(env);
        const { account, ledger } = env;
        if (!account || !ledger) throw new BuyerError("key_unavailable", "BUYER_PRIVATE_KEY is not set");
        const early = checkSpend({ allowResources: tool.config.policy.allowResources }, undefined, {
          resourceId: id,
          cap: 0n,
          now: Date.now(),
        });
        if (early) throw new SpendRefusedError(early);
        const pinned = await readPinnedCard(chain, id);
        const { confirmAbove } = tool.config.policy;
        if (confirmAbove !== undefined && pinned.cap > confirmAbove) {
          const refusal = checkSpend(tool.config.policy, await ledger.read(), {
            resourceId: id,
            creator: pinned.creator,
            cap: pinned.cap,
            now: Date.now(),
          });
          if (refusal) throw new SpendRefusedError(refusal);
          await confirmPayment({
            server: tool.server,
            pinned,
            threshold: confirmAbove,
            relatedRequestId: extra.requestId,
          });
        }
        const paid = await payForCall({
          chain,
          account,
          callUrl: pinned.card.url,
          body: input.body ?? {},
          pinned,
          beforeSign: (terms, payment) =>
            // No idemKey: the ledger allocates the key's next bitmap nonce under its lock, shared by its processes.
            ledger.hold({ ...payment, idemKey: undefined, resourceId: terms.resourceId, cap: terms.cap }, (view) => {
              const refusal = checkSpend(tool.config.policy, view, {
                resourceId: terms.resourceId,
                creator: terms.creator,
                cap: terms.cap,
                now: Date.now(),
              });
              if (refusal) throw new SpendRefusedError(refusal);
            }),
          onSigned: (idemKey) => tool.log(`service-buyer: signed payment ${idemKey} for ${id}`),
        });
        const { transaction } = await verifyDebit(chain, paid.receipt).catch((error: Error) => {
          throw new PaymentUnknownError({
            idemKey: paid.idemKey,
            validBefore: paid.validBefore,
            reason: `the answer came, but its debit is not proven on chain: ${error.message.split("\n")[0]}`,
            cause: error,
          });
        });
        return toolAnswer(env.mode, {
          resourceId: id,
          body: paid.body,
          amount: formatAmount(paid.receipt.amount),
          cap: formatAmount(paid.terms.cap),
          transaction,
          idemKey: paid.idemKey,
          receipt: paid.receipt,
        });
      }),
  );
}
