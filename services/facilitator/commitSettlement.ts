import type { Address } from "viem";
import { getAddress } from "viem";
import { encodeBase64Json } from "../protocol/base64.ts";
import { NETWORK, RESULT_TTL_SECONDS, SCHEME_ESCROW } from "../protocol/constants.ts";
import { defined } from "../protocol/defined.ts";
import { splitAmount } from "../protocol/price.ts";
import type { Receipt } from "../protocol/schemas/receipt.ts";
import { settlementIdOf } from "../protocol/settlementId.ts";
import type { FacilitatorContext } from "./context.ts";
import type { Reservation } from "./store/reservations.ts";
import { recordCommitment } from "./store/results.ts";

/**
 * Least seconds of the signed window that must be left at settle for a debit to be answered committed: the relayer
 * then has at least this long (an RPC outage, a pause) to mine it before the authorization expires. A payment with
 * less left is settled confirmed. The buyer SDK signs `maxTimeoutSeconds + 120` s, so a normal call has 120 s or more.
 */
export const COMMIT_MIN_SECONDS = 60;

/**
 * Why a settling reservation may not be answered before its debit is mined, or null when it may. Committed is only
 * for what no one but our relayer can stop: an escrow debit (the buyer's balance is reserved under its lock, a
 * withdrawal or a spend-limit decrease waits a day, the nonce is only spendable by the relayer) signed by the
 * buyer's key. An `exact` payment can be cancelled or spent at the token, and a contract wallet can withdraw its
 * ERC-1271 approval, so those wait for the chain; so does everything while the escrow is paused.
 */
export async function commitRefusal(ctx: FacilitatorContext, r: Reservation, now: number): Promise<string | null> {
  if (ctx.settlement !== "committed") return "SETTLEMENT=confirmed";
  if (r.scheme !== SCHEME_ESCROW) return "an exact payment waits for its transfer";
  if (r.payload.signedBy === "contract") return "a contract wallet's signature can be revoked before mining";
  if (Number(r.payload.authorization.validBefore) - now < COMMIT_MIN_SECONDS)
    return `less than ${COMMIT_MIN_SECONDS} s of the authorization is left`;
  try {
    if ((await ctx.chain.escrowPolicy()).paused) return "the escrow is paused";
  } catch {
    return "the escrow's state could not be read";
  }
  return null;
}

/**
 * Answers a settling escrow reservation at once: stores its committed result (the response, and a receipt that
 * names the settlement and the split at the escrow's current fee) and hands the debit to the relayer in the
 * background, where `drive` mines it and replaces the result by the confirmed one. The reservation stays settling,
 * and held, until then; after a crash the background pass of any instance drives it.
 */
export async function commitSettlement(
  ctx: FacilitatorContext,
  r: Reservation,
  drive: (r: Reservation) => Promise<unknown>,
): Promise<Record<string, unknown>> {
  const now = ctx.clock.now();
  const buyer = getAddress(defined(r.payload.authorization.buyer, "the authorization's buyer") as Address);
  const amount = defined(r.amount, "the settling amount");
  const split = splitAmount(amount, (await ctx.chain.escrowPolicy()).feeBps);
  const receipt: Receipt = {
    success: true,
    status: "committed",
    settlementId: settlementIdOf({ escrow: ctx.escrow, buyer, nonce: r.idemKey }),
    scheme: SCHEME_ESCROW,
    network: NETWORK,
    payer: buyer,
    payTo: r.resourceId,
    idemKey: r.idemKey,
    amount: amount.toString(),
    creatorAmount: split.creator.toString(),
    treasuryAmount: split.treasury.toString(),
    settledAt: new Date(now * 1000).toISOString(),
  };
  const stored = await recordCommitment(ctx.store, {
    idemKey: r.idemKey,
    resourceId: r.resourceId,
    response: defined(r.response, "the settled response"),
    receipt: encodeBase64Json(receipt),
    body: settleBody(receipt),
    settledAt: now,
    expiresAt: now + RESULT_TTL_SECONDS,
  });
  ctx.metrics.settle.inc({ outcome: "committed" });
  const driving = drive({ ...r, committedAt: now }).catch((error: Error) =>
    ctx.logger.warn(
      { idemKey: r.idemKey, err: error.message },
      "committed debit not mined yet; the retrier takes over",
    ),
  );
  ctx.driving.add(driving);
  void driving.finally(() => ctx.driving.delete(driving));
  return stored;
}

/** The `POST /settle` answer for a receipt: its fields, and the receipt itself in base64. */
export function settleBody(receipt: Receipt): Record<string, unknown> {
  const { scheme: _scheme, payTo: _payTo, settledAt: _settledAt, success, ...fields } = receipt;
  return { success, ...fields, receipt: encodeBase64Json(receipt) };
}
