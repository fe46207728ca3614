import type { Hex } from "viem";
import { z } from "zod";
import { BuyerError } from "../../sdk/buyerError.ts";
import { checkCommittedReceipt } from "../../sdk/checkCommittedReceipt.ts";
import { confirmedDebit } from "../../sdk/confirmedDebit.ts";
import { formatAmount } from "../../sdk/formatAmount.ts";
import { recoverResult } from "../../sdk/recoverResult.ts";
import { requireSettings } from "../buyerEnvironment.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { amountView, common, receiptShape } from "./toolShapes.ts";

/**
 * Registers `recover_result`: what became of a payment by its idemKey, from the chain, the ledger and the facilitator.
 * @example registerRecoverResult(createToolContext({ server, config, source, log }))
 */
export function registerRecoverResult(tool: ToolContext): void {
  tool.server.registerTool(
    "recover_result",
    {
      title: "Find out what became of a payment",
      description: `Tells what became of a payment by the idemKey call_resource reported (after payment_unknown, or a lost answer): the chain says whether it was debited, how much and when ("paid"; only "at most its cap" when its nonce is spent and no log shows the debit a day past its validBefore), that it can no longer be ("not_paid"), or that it still may be until validBefore ("pending"; with settlement "committed" when the facilitator recorded its debit, which is final and lands on chain by validBefore, or facilitator "in_progress" / "settlement_pending" when the facilitator holds it open: its call being served, or its debit waiting for the chain; ask again in a few seconds). The answer the facilitator keeps for 24 h (FACILITATOR_URL) comes back when it agrees with the chain. Pays nothing; never pay again for a payment that is pending.${tool.scoped}`,
      inputSchema: z.strictObject({
        idemKey: z
          .string()
          .regex(/^0x[0-9a-fA-F]{64}$/)
          .describe("The payment's idemKey"),
      }),
      outputSchema: {
        ...common,
        outcome: z.enum(["paid", "not_paid", "pending"]),
        /** A pending payment whose debit the facilitator recorded (committed): final, on chain by validBefore. */
        settlement: z.literal("committed").optional(),
        /**
         * A pending payment the facilitator holds open: its call is being served (`in_progress`), or its debit waits
         * for the chain (`settlement_pending`); ask again in a few seconds.
         */
        facilitator: z.enum(["in_progress", "settlement_pending"]).optional(),
        message: z.string(),
        resourceId: z.string(),
        amount: amountView.optional(),
        transaction: z.string().optional(),
        debitedAt: z.string().optional(),
        validBefore: z.string().optional(),
        status: z.number().optional(),
        body: z.unknown().optional(),
        receipt: receiptShape.optional(),
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) =>
      tool.run(async (env) => {
        requireSettings(env, ["BUYER_PRIVATE_KEY", "FACILITATOR_URL"]);
        const chain = tool.chainOf(env);
        if (!env.account || !env.ledger) throw new BuyerError("key_unavailable", "BUYER_PRIVATE_KEY is not set");
        const idemKey = input.idemKey.toLowerCase() as Hex;
        const { hold, debit, released, spentUnseen } = (await env.ledger.read()).payment(idemKey);
        // The facilitator's word on a payment it holds open, with no result yet (its 202).
        let open: { code: "in_progress" | "settlement_pending"; message: string } | undefined;
        const stored = env.facilitatorUrl
          ? await recoverResult({
              facilitatorUrl: env.facilitatorUrl,
              idemKey,
              payer: env.account.address,
              cap: hold && BigInt(hold.cap),
            }).catch((error: Error) => {
              if (error instanceof BuyerError && error.code === "not_found") return undefined;
              if (error instanceof BuyerError && (error.code === "in_progress" || error.code === "settlement_pending"))
                open = { code: error.code, message: error.message };
              if (debit || hold) return undefined;
              throw error;
            })
          : undefined;
        // A confirmed receipt of a payment the ledger has not seen debited: mined since its scan, checked on chain.
        const mined = !debit && !released && stored ? await confirmedDebit(chain, stored.receipt) : undefined;
        const resourceId = debit?.resourceId ?? hold?.resourceId ?? stored?.resourceId;
        if (!resourceId)
          throw new BuyerError(
            "not_found",
            `no payment ${idemKey} of this buyer on chain, in the ledger or at the facilitator`,
          );
        tool.target(resourceId);
        const agrees =
          stored &&
          (!debit || (stored.receipt.amount === debit.amount && stored.resourceId.toLowerCase() === debit.resourceId));
        const answer = agrees ? { status: stored.status, body: stored.body, receipt: stored.receipt } : {};
        const paid = debit ?? mined;
        if (paid)
          return toolAnswer(env.mode, {
            outcome: "paid",
            message: agrees
              ? "debited on chain; the answer is the one the facilitator kept"
              : "debited on chain; the facilitator keeps no answer that agrees with the debit",
            resourceId,
            amount: formatAmount(paid.amount),
            transaction: paid.transaction,
            debitedAt: new Date(paid.at).toISOString(),
            ...answer,
          });
        if (spentUnseen)
          return toolAnswer(env.mode, {
            outcome: "paid",
            message: `debited on chain (its nonce is spent) before its validBefore, for at most its cap${hold ? ` of ${formatAmount.text(hold.cap)}` : ""}; no log of the chain showed the debit, so its amount, transaction and time are unknown`,
            resourceId,
            ...answer,
          });
        if (released)
          return toolAnswer(env.mode, {
            outcome: "not_paid",
            message: "not debited, and past its validBefore it never can be: nothing was paid",
            resourceId,
          });
        const validBefore = hold ? new Date(Number(hold.validBefore) * 1000).toISOString() : undefined;
        const committed =
          stored?.receipt.status === "committed" &&
          (await checkCommittedReceipt(chain, stored.receipt).then(
            () => true,
            () => false,
          ));
        return toolAnswer(env.mode, {
          outcome: "pending",
          message: committed
            ? `committed: the facilitator recorded its debit, which is final and lands on chain${validBefore ? ` by ${validBefore}` : " by its validBefore"} (it may be held until its batch pays for its gas); do not pay again`
            : open
              ? `not debited yet, and the facilitator holds it open: ${open.message}; do not pay again meanwhile`
              : `not debited yet, and it still may be${validBefore ? ` until ${validBefore}` : ""}: ask again later, and do not pay again meanwhile`,
          resourceId,
          ...(committed ? { settlement: "committed" as const } : {}),
          ...(!committed && open ? { facilitator: open.code } : {}),
          validBefore,
          ...answer,
        });
      }),
  );
}
