import { z } from "zod";
import type { Receipt } from "../../../../protocol/schemas/receipt.ts";
import { BuyerError } from "../../sdk/buyerError.ts";
import { checkCommittedReceipt } from "../../sdk/checkCommittedReceipt.ts";
import type { ConfirmedDebit } from "../../sdk/confirmedDebit.ts";
import { confirmedDebit } from "../../sdk/confirmedDebit.ts";
import { formatAmount } from "../../sdk/formatAmount.ts";
import { recoverResult } from "../../sdk/recoverResult.ts";
import { toolAnswer } from "../toolResult.ts";
import type { ToolContext } from "./toolContext.ts";
import { amountView, common, receiptShape } from "./toolShapes.ts";

/** A buyer-facing failure (the facilitator has no such result, a receipt that does not check out) reads as nothing. */
const unlessBuyerError = (error: unknown): undefined => {
  if (error instanceof BuyerError) return undefined;
  throw error;
};

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
      description: `Lists the buyer's payments, newest first: every payment this key signed here and every debit the chain shows for it since the ledger opened (at most a day before its first use), from any process. Each has the resource, its status ("paid": debited on chain, with the amount, transaction and time, which are missing when only its spent nonce shows it; "pending": signed, may still be debited until validBefore, with settlement "committed" and the facilitator's receipt when the facilitator recorded its debit, which is final and lands on chain by validBefore; "not_paid": void, nothing paid), the cap it was signed for, and for a paid one the receipt the facilitator keeps for 24 h (FACILITATOR_URL). Amounts in base units and USDC. Pays nothing.${tool.scoped}`,
      inputSchema: z.strictObject({
        limit: z.int().min(1).max(200).optional().describe("How many payments (default 20)"),
        resourceId: z
          .string()
          .regex(/^0x[0-9a-fA-F]{64}$/)
          .optional()
          .describe("Only the payments to this resource"),
      }),
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
        /**
         * The facilitator's stored receipt of a payment, when it checks out: for a debited one, its amount; for a
         * pending one, a committed receipt of this payment's debit, or a confirmed one whose transaction holds this
         * debit on chain. The last is a debit mined after the ledger's scan (or past a provider whose logs lag): it
         * is listed paid, with the transaction and time the chain gives, never pending without its receipt.
         */
        const storedOf = async (p: (typeof shown)[number]): Promise<{ receipt?: Receipt; mined?: ConfirmedDebit }> => {
          if (!(p.debit || p.status === "pending") || !env.facilitatorUrl) return {};
          const stored = await recoverResult({
            facilitatorUrl: env.facilitatorUrl,
            idemKey: p.idemKey,
            payer: account.address,
            cap: p.hold && BigInt(p.hold.cap),
          }).catch(unlessBuyerError);
          if (!stored) return {};
          const { receipt } = stored;
          if (p.debit) return receipt.amount === p.debit.amount ? { receipt } : {};
          if (receipt.status === "committed")
            return (await checkCommittedReceipt(chain, receipt).catch(unlessBuyerError)) ? { receipt } : {};
          const mined = await confirmedDebit(chain, receipt);
          return mined ? { receipt, mined } : {};
        };
        const listed = await Promise.all(
          shown.map(async (p) => {
            const { receipt, mined } = await storedOf(p);
            const debit = p.debit ?? mined;
            const view = {
              idemKey: p.idemKey,
              resourceId: p.resourceId,
              status: debit ? ("paid" as const) : p.status,
              ...(receipt?.status === "committed" && !debit ? { settlement: "committed" as const } : {}),
              ...(debit
                ? {
                    amount: formatAmount(debit.amount),
                    transaction: debit.transaction,
                    debitedAt: new Date(debit.at).toISOString(),
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
            return { view, mined };
          }),
        );
        const paid =
          all.reduce((sum, p) => sum + BigInt(p.debit?.amount ?? 0), 0n) +
          listed.reduce((sum, { mined }) => sum + BigInt(mined?.amount ?? 0), 0n);
        const payments = listed.map(({ view }) => view);
        return toolAnswer(env.mode, { payments, total: all.length, totalPaid: formatAmount(paid) });
      }),
  );
}
