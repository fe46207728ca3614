import { z } from "zod";
import { BuyerError } from "../../sdk/buyerError.ts";
import { checkCommittedReceipt } from "../../sdk/checkCommittedReceipt.ts";
import { formatAmount } from "../../sdk/formatAmount.ts";
import { recoverResult } from "../../sdk/recoverResult.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { amountView, common, receiptShape } from "./toolShapes.ts";

/**
 * Registers `list_payments`: the buyer's payments, newest first, from the spend ledger brought up to the chain, with
 * the receipt the facilitator keeps for each paid one.
 * @example registerListPayments(createToolContext({ server, config, source, log }))
 */
export function registerListPayments(tool: ToolContext): void {
  tool.server.registerTool(
    "list_payments",
    {
      title: "Past payments",
      description: `Lists the buyer's payments, newest first: every payment this key signed here and every debit the chain shows for it since the ledger opened (at most a day before its first use), from any process. Each has the resource, its status ("paid": debited on chain, with the amount, transaction and time; "pending": signed, may still be debited until validBefore, with settlement "committed" and the facilitator's receipt when the facilitator recorded its debit, which is final and lands on chain by validBefore; "not_paid": void, nothing paid), the cap it was signed for, and for a paid one the receipt the facilitator keeps for 24 h (FACILITATOR_URL). Amounts in base units and USDC. Pays nothing.${tool.scoped}`,
      inputSchema: {
        limit: z.int().min(1).max(200).optional().describe("How many payments (default 20)"),
        resourceId: z
          .string()
          .regex(/^0x[0-9a-fA-F]{64}$/)
          .optional()
          .describe("Only the payments to this resource"),
      },
      outputSchema: {
        ...common,
        payments: z.array(
          z.object({
            idemKey: z.string(),
            resourceId: z.string(),
            status: z.enum(["paid", "pending", "not_paid"]),
            settlement: z.literal("committed").optional(),
            amount: amountView.optional(),
            cap: amountView.optional(),
            transaction: z.string().optional(),
            debitedAt: z.string().optional(),
            signedAt: z.string().optional(),
            validBefore: z.string().optional(),
            receipt: receiptShape.optional(),
          }),
        ),
        total: z.number(),
        totalPaid: amountView,
      },
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    (input) =>
      tool.run(async (env) => {
        const { chain, ledger, account } = tool.buyerOf(env);
        const wanted = input.resourceId?.toLowerCase();
        const all = (await ledger.read())
          .payments()
          .filter((p) => tool.inScope(p.resourceId) && (!wanted || p.resourceId === wanted));
        const shown = all.slice(0, input.limit ?? 20);
        const receiptOf = async (p: (typeof shown)[number]) => {
          if (!(p.debit || p.status === "pending") || !env.facilitatorUrl) return undefined;
          const stored = await recoverResult({
            facilitatorUrl: env.facilitatorUrl,
            idemKey: p.idemKey,
            payer: account.address,
            cap: p.hold && BigInt(p.hold.cap),
          }).catch((error: Error) => {
            if (error instanceof BuyerError) return undefined;
            throw error;
          });
          if (!stored) return undefined;
          if (p.debit) return stored.receipt.amount === p.debit.amount ? stored.receipt : undefined;
          // Not on chain yet: the facilitator's committed receipt, when it is this payment's committed debit.
          const committed = await checkCommittedReceipt(chain, stored.receipt).then(
            () => true,
            () => false,
          );
          return committed ? stored.receipt : undefined;
        };
        const payments = await Promise.all(
          shown.map(async (p) => {
            const receipt = await receiptOf(p);
            return {
              idemKey: p.idemKey,
              resourceId: p.resourceId,
              status: p.status,
              ...(receipt?.status === "committed" && !p.debit ? { settlement: "committed" as const } : {}),
              ...(p.debit
                ? {
                    amount: formatAmount(p.debit.amount),
                    transaction: p.debit.transaction,
                    debitedAt: new Date(p.debit.at).toISOString(),
                  }
                : {}),
              ...(p.hold
                ? {
                    cap: formatAmount(p.hold.cap),
                    signedAt: new Date(p.hold.signedAt).toISOString(),
                    validBefore: new Date(Number(p.hold.validBefore) * 1000).toISOString(),
                  }
                : {}),
              ...(receipt ? { receipt } : {}),
            };
          }),
        );
        const paid = all.reduce((sum, p) => sum + BigInt(p.debit?.amount ?? 0), 0n);
        return toolAnswer(env.mode, { payments, total: all.length, totalPaid: formatAmount(paid) });
      }),
  );
}
