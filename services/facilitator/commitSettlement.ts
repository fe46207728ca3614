import type { Address, Hex } from "viem";
import { getAddress } from "viem";
import { encodeBase64Json } from "../protocol/base64.ts";
import { NETWORK, RESULT_TTL_SECONDS, SCHEME_ESCROW } from "../protocol/constants.ts";
import { defined } from "../protocol/defined.ts";
import { splitAmount } from "../protocol/price.ts";
import type { Receipt } from "../protocol/schemas/receipt.ts";
import { settlementIdOf } from "../protocol/settlementId.ts";
import type { FacilitatorContext } from "./facilitatorContext.ts";
import type { Reservation, StoredResponse } from "./store/reservations.ts";
import { claimAndCommit } from "./store/reservations.ts";
import { recordCommitment } from "./store/results.ts";

/**
 * Least seconds of the signed window that must be left at settle for a debit to be answered committed: the relayer
 * then has at least this long (an RPC outage, a pause) to mine it before the authorization expires. A payment with
 * less left is settled confirmed. The buyer SDK signs at least `maxTimeoutSeconds + 120` s (and up to the hour the
 * gates' quotes ask for), so a normal call has 120 s or more.
 */
export const COMMIT_MIN_SECONDS = 60;

/** What decides whether a settle may be answered before its debit is mined. */
export type CommitCandidate = { scheme: string; signedBy: "key" | "contract"; validBefore: number };

/** The commit candidate of a stored reservation. */
export const candidateOf = (r: Reservation): CommitCandidate => ({
  scheme: r.scheme,
  signedBy: r.payload.signedBy === "contract" ? "contract" : "key",
  validBefore: r.validBefore,
});

/**
 * Why a settle may not be answered before its debit is mined, or null when it may. Committed is only for what no
 * one but our relayer can stop: an escrow debit (the buyer's balance is reserved under its lock, a withdrawal or a
 * spend-limit decrease waits a day, the nonce is only spendable by the relayer) signed by the buyer's key. An
 * `exact` payment can be cancelled or spent at the token, and a contract wallet can withdraw its ERC-1271 approval,
 * so those wait for the chain; so does everything while the escrow is paused.
 */
export async function commitRefusal(ctx: FacilitatorContext, c: CommitCandidate, now: number): Promise<string | null> {
  if (ctx.settlement !== "committed") return "SETTLEMENT=confirmed";
  if (c.scheme !== SCHEME_ESCROW) return "an exact payment waits for its transfer";
  if (c.signedBy === "contract") return "a contract wallet's signature can be revoked before mining";
  if (c.validBefore - now < COMMIT_MIN_SECONDS) return `less than ${COMMIT_MIN_SECONDS} s of the authorization is left`;
  try {
    if ((await ctx.chain.escrowPolicy()).paused) return "the escrow is paused";
  } catch {
    return "the escrow's state could not be read";
  }
  return null;
}

/** The committed receipt of a debit: it names the settlement and the split at the escrow's current fee. */
async function committedReceipt(
  ctx: FacilitatorContext,
  d: { buyer: Address; amount: bigint; resourceId: Hex; idemKey: Hex; now: number },
): Promise<Receipt> {
  const split = splitAmount(d.amount, (await ctx.chain.escrowPolicy()).feeBps);
  return {
    success: true,
    status: "committed",
    settlementId: settlementIdOf({ escrow: ctx.escrow, buyer: d.buyer, nonce: d.idemKey }),
    scheme: SCHEME_ESCROW,
    network: NETWORK,
    payer: d.buyer,
    payTo: d.resourceId,
    idemKey: d.idemKey,
    amount: d.amount.toString(),
    creatorAmount: split.creator.toString(),
    treasuryAmount: split.treasury.toString(),
    settledAt: new Date(d.now * 1000).toISOString(),
  };
}

/** Hands a committed debit to the relayer in the background; stop waits for it, a crash leaves it to the retrier. */
function driveInBackground(ctx: FacilitatorContext, r: Reservation, drive: (r: Reservation) => Promise<unknown>) {
  ctx.metrics.settle.inc({ outcome: "committed" });
  const driving = drive(r).catch((error: Error) =>
    ctx.logger.warn(
      { idemKey: r.idemKey, err: error.message },
      "committed debit not mined yet; the retrier takes over",
    ),
  );
  ctx.driving.add(driving);
  void driving.finally(() => ctx.driving.delete(driving));
}

/**
 * Answers a settling escrow reservation at once: stores its committed result (a receipt that names the settlement and
 * the split at the escrow's current fee, beside the response the reservation holds) and hands the debit to the relayer in the
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
  const receipt = await committedReceipt(ctx, { buyer, amount, resourceId: r.resourceId, idemKey: r.idemKey, now });
  const encoded = encodeBase64Json(receipt);
  const stored = await recordCommitment(ctx.store, {
    idemKey: r.idemKey,
    buyer: r.buyer,
    resourceId: r.resourceId,
    receipt: encoded,
    settledAt: now,
    expiresAt: now + RESULT_TTL_SECONDS,
  });
  driveInBackground(ctx, { ...r, committedAt: now }, drive);
  return stored ?? settleBody(receipt, encoded);
}

/**
 * The common path of a committed settle, in one statement: when this instance verified the payment
 * (ctx.reservedTerms) and may commit it, the reservation is claimed and the committed result stored together.
 * Null when it may not (the caller then takes the general path, which also says why a settle cannot proceed).
 */
export async function commitVerified(
  ctx: FacilitatorContext,
  p: { idemKey: Hex; buyer: Hex; resourceId: Hex; amount: bigint; response: StoredResponse },
  drive: (r: Reservation) => Promise<unknown>,
): Promise<Record<string, unknown> | null> {
  const terms = ctx.reservedTerms.take(p);
  if (!terms || terms.resourceId !== p.resourceId) return null;
  const now = ctx.clock.now();
  if ((await commitRefusal(ctx, { scheme: SCHEME_ESCROW, ...terms }, now)) !== null) return null;
  // biome-ignore lint/complexity/useMathMinMax: bigint amounts, which Math.min does not take
  const amount = p.amount < terms.cap ? p.amount : terms.cap;
  const receipt = await committedReceipt(ctx, { ...terms, amount, idemKey: p.idemKey, now });
  const encoded = encodeBase64Json(receipt);
  const claimed = await claimAndCommit(
    ctx.store,
    {
      idemKey: p.idemKey,
      resourceId: p.resourceId,
      buyer: terms.buyer,
      cap: terms.cap,
      amount,
      response: p.response,
      leaseUntil: now + ctx.settleLeaseSeconds,
      receipt: encoded,
      expiresAt: now + RESULT_TTL_SECONDS,
    },
    now,
  );
  if (!claimed) return null;
  driveInBackground(ctx, claimed, drive);
  return settleBody(receipt, encoded);
}

/**
 * The `POST /settle` answer for a receipt: its fields, and the receipt itself in base64 (`encoded`, when the caller
 * already encoded it to store it). The store reads a stored answer the same way from the receipt it keeps
 * (settle_answer in store/migrations.ts).
 */
export function settleBody(receipt: Receipt, encoded = encodeBase64Json(receipt)): Record<string, unknown> {
  const { scheme: _scheme, payTo: _payTo, settledAt: _settledAt, success, ...fields } = receipt;
  return { success, ...fields, receipt: encoded };
}
