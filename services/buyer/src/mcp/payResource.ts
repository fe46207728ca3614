import type { RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { Hex } from "viem";
import type { AcceptReceiptReturnType } from "../sdk/acceptReceipt.ts";
import { acceptReceipt } from "../sdk/acceptReceipt.ts";
import { BuyerError } from "../sdk/buyerError.ts";
import type { PayForCallReturnType } from "../sdk/payForCall.ts";
import { payForCall } from "../sdk/payForCall.ts";
import { PaymentUnknownError } from "../sdk/paymentUnknownError.ts";
import { readPinnedCard } from "../sdk/readPinnedCard.ts";
import type { BuyerEnvironment } from "./buyerEnvironment.ts";
import { requireSettings } from "./buyerEnvironment.ts";
import { confirmPayment } from "./confirmPayment.ts";
import { checkSpend, SpendRefusedError } from "./spendPolicy.ts";
import type { ToolContext } from "./tools/toolContext.ts";

/** The settings of the spend policy: a paying call is refused while one of them is malformed. */
const SPEND_SETTINGS = [
  "SPEND_MAX_PER_CALL",
  "SPEND_CONFIRM_ABOVE",
  "SPEND_HOURLY_BUDGET",
  "SPEND_DAILY_BUDGET",
  "SPEND_ALLOW_RESOURCES",
  "SPEND_ALLOW_CREATORS",
  "SPEND_MAX_AUTHORIZATION_SECONDS",
] as const;

/**
 * A paid call and where its debit stands: `confirmed` with the transaction proven on chain, or `committed` (final: its
 * settlementId is this payment's, and the debit is mined by `validBefore`), with no transaction yet.
 */
export type PayResourceReturnType = {
  paid: PayForCallReturnType;
  settlement: AcceptReceiptReturnType["settlement"];
  transaction?: Hex | undefined;
};

/**
 * The one way every paying tool of the server pays for a call (`call_resource` and each resource's own tool): pins
 * the card against the chain, checks the spend policy on the cap, asks the user above SPEND_CONFIRM_ABOVE
 * (`confirmPayment`), holds the cap in the spend ledger under its lock and signs (`payForCall`, for at most
 * SPEND_MAX_AUTHORIZATION_SECONDS), and takes the receipt as final (`acceptReceipt`: a confirmed one's debit proven on
 * chain, a committed one's settlementId this payment's, without waiting for the mining; the ledger holds its cap until
 * the chain shows the debit). Throws the tool errors of each step; after the payment is sent, only `payment_unknown`.
 * @example const { paid, settlement } = await payResource(tool, env, { resourceId, body, relatedRequestId })
 */
export async function payResource(
  tool: ToolContext,
  env: BuyerEnvironment,
  p: { resourceId: Hex; body: unknown; relatedRequestId?: RequestId | undefined },
): Promise<PayResourceReturnType> {
  const id = p.resourceId;
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
      relatedRequestId: p.relatedRequestId,
    });
  }
  const paid = await payForCall({
    chain,
    account,
    callUrl: pinned.card.url,
    body: p.body,
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
    maxAuthorizationSeconds: tool.config.maxAuthorizationSeconds,
  });
  const accepted = await acceptReceipt(chain, paid.receipt).catch((error: Error) => {
    throw new PaymentUnknownError({
      idemKey: paid.idemKey,
      validBefore: paid.validBefore,
      reason: `the answer came, but its receipt is not this payment's settled debit: ${error.message.split("\n")[0]}`,
      cause: error,
    });
  });
  return {
    paid,
    settlement: accepted.settlement,
    transaction: accepted.settlement === "confirmed" ? accepted.transaction : undefined,
  };
}
