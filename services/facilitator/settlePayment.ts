import type { Address, Hex } from "viem";
import { decodeErrorResult } from "viem";
import { abiOf } from "../protocol/artifacts.ts";
import { encodeBase64Json } from "../protocol/base64.ts";
import { NETWORK, RESULT_TTL_SECONDS } from "../protocol/constants.ts";
import { defined } from "../protocol/defined.ts";
import type { Receipt } from "../protocol/schemas/receipt.ts";
import { settlementIdOf } from "../protocol/settlementId.ts";
import { candidateOf, commitRefusal, commitSettlement, commitVerified, settleBody } from "./commitSettlement.ts";
import type { FacilitatorContext } from "./facilitatorContext.ts";
import type { DebitOutcome } from "./relayer/debitOutcome.ts";
import { TransactionRevertedError } from "./relayer/sendTransaction.ts";
import type { Reservation, ReservationKey, StoredResponse } from "./store/reservations.ts";
import {
  backOffSettlement,
  claimForSettlement,
  findReservation,
  reservationEnd,
  updateReservation,
} from "./store/reservations.ts";
import { findResult, recordSettlement } from "./store/results.ts";

export type SettlePaymentParameters = {
  idemKey: Hex;
  /** The payer whose reservation of `idemKey` this settles (lowercase or checksummed). */
  buyer: Hex;
  resourceId: Hex;
  amount: bigint;
  response: StoredResponse;
};

/** `POST /settle`'s outcome: the settle body (200), no reservation (409), failed for good (409), or pending (503). */
export type SettlePaymentReturnType =
  | { kind: "settled"; body: Record<string, unknown> }
  | { kind: "no_reservation"; message: string }
  | { kind: "settlement_failed"; message: string }
  | { kind: "pending"; retryAfterSeconds: number };

/** The `Retry-After` (seconds) of a settlement not mined yet: `POST /settle`'s 503 and `GET /results`' 202. */
export const SETTLEMENT_RETRY_AFTER_SECONDS = 2;

/** Blocks searched back for the debit of a reservation that predates `from_block` (about a day at 2 s blocks). */
const LEGACY_SEARCH_BLOCKS = 50_000n;

/**
 * Debits `min(amount, cap)` of a live reservation through the relayer, persists the response and receipt, and
 * answers with the receipt: at once with a committed receipt when the debit may be committed (commitRefusal), else
 * once the debit is mined. A repeated or concurrent settle of one idemKey yields one debit and the stored body.
 * @example const outcome = await settlePayment(ctx, { idemKey, buyer, resourceId, amount: 1200n, response })
 */
export async function settlePayment(
  ctx: FacilitatorContext,
  p: SettlePaymentParameters,
): Promise<SettlePaymentReturnType> {
  const committed = await commitVerified(ctx, p, (r) => driveSettlement(ctx, r));
  if (committed) return { kind: "settled", body: committed };
  const now = ctx.clock.now();
  const claimed = await claimForSettlement(ctx.store, { ...p, leaseUntil: now + ctx.settleLeaseSeconds }, now);
  if (claimed) return settleClaimed(ctx, claimed, now);
  // Not a live reservation: say why (none, expired, released), or wait for the settle that is driving it.
  const claim = await ctx.store.transaction(async (tx) => {
    const r = await findReservation(tx, p, true);
    if (!r || r.resourceId !== p.resourceId)
      return { kind: "none" as const, message: "no reservation for this idemKey and resource" };
    if (r.status === "settled") return { kind: "done" as const };
    if (r.status === "released" || r.status === "expired")
      return { kind: "none" as const, message: `the reservation was ${r.status}` };
    if (r.status === "settling") return { kind: "wait" as const };
    if (reservationEnd(r) <= now) {
      await updateReservation(tx, r, { status: "expired" }, now);
      return { kind: "none" as const, message: "the reservation expired before settlement" };
    }
    const amount = r.scheme === "exact" || p.amount > r.cap ? r.cap : p.amount;
    await updateReservation(
      tx,
      r,
      { status: "settling", amount, response: p.response, leaseUntil: now + ctx.settleLeaseSeconds },
      now,
    );
    return { kind: "drive" as const, reservation: { ...r, status: "settling" as const, amount, response: p.response } };
  });

  if (claim.kind === "none") return { kind: "no_reservation", message: claim.message };
  if (claim.kind === "done" || claim.kind === "wait") return awaitResult(ctx, p);
  return settleClaimed(ctx, claim.reservation, now);
}

/** A reservation this settle claimed: committed at once when it may be, else driven until mined. */
async function settleClaimed(ctx: FacilitatorContext, r: Reservation, now: number): Promise<SettlePaymentReturnType> {
  const refusal = await commitRefusal(ctx, candidateOf(r), now);
  if (refusal !== null) return driveSettlement(ctx, r);
  return { kind: "settled", body: await commitSettlement(ctx, r, (committed) => driveSettlement(ctx, committed)) };
}

/**
 * Submits a settling reservation's debit and records what became of it. Used by settle, by a commitment in the
 * background and by the retrier. Returns `pending` when the chain could not confirm it; the reservation then stays
 * settling for the retrier.
 */
export async function driveSettlement(ctx: FacilitatorContext, r: Reservation): Promise<SettlePaymentReturnType> {
  let outcome: DebitOutcome;
  try {
    outcome = await submit(ctx, r);
  } catch (error) {
    if (error instanceof TransactionRevertedError) return giveUp(ctx, r, error.reason);
    ctx.logger.warn(
      { idemKey: r.idemKey, err: (error as Error).message },
      "settlement pending: the chain did not confirm the debit",
    );
    ctx.metrics.settle.inc({ outcome: "pending" });
    await backOffSettlement(ctx.store, r, ctx.clock.now());
    return { kind: "pending", retryAfterSeconds: SETTLEMENT_RETRY_AFTER_SECONDS };
  }
  if (outcome.kind === "skipped")
    return giveUp(ctx, r, `skipped in the batch: ${outcome.reason.slice(0, 10)}`, spentOnChain(r, outcome.reason));
  return finalize(ctx, r, outcome);
}

const escrowAbi = abiOf("PaymentEscrow");

/**
 * Whether a skip proves that this escrow payment was debited: its nonce is spent (the escrow's `NonceAlreadyUsed`, a
 * batch's skip reason), and only this operator's relayers can spend an escrow nonce, which the store reserves once
 * per buyer. (An `exact` authorization can be spent by the buyer's own cancellation at the token: no proof.)
 */
function spentOnChain(r: Reservation, reason: Hex): boolean {
  if (r.scheme !== "service-escrow") return false;
  try {
    return decodeErrorResult({ abi: escrowAbi, data: reason }).errorName === "NonceAlreadyUsed";
  } catch {
    return false;
  }
}

/**
 * Releases a settlement the chain refuses for good (nothing is resent), recording why, unless an earlier attempt's
 * debit landed after all: then that debit is the result. A committed debit is never given up while its window is
 * open: it was answered, so a refusal (an admin's pause, say) is retried with a backoff until the window closes. Nor
 * is one the chain says was debited (`spent`: its nonce skipped as spent) whose debit the logs do not show yet (a
 * provider whose logs lag its head): the retrier looks for it again, and releases it only once its window closed.
 */
async function giveUp(
  ctx: FacilitatorContext,
  r: Reservation,
  reason: string,
  spent = false,
): Promise<SettlePaymentReturnType> {
  const found = await findDebit(ctx, r);
  if (found) return finalize(ctx, r, found);
  const kept = spent
    ? {
        level: "warn" as const,
        outcome: "pending",
        why: "the chain says this payment's nonce is spent, and its debit is not in the logs yet; looking again with a backoff",
      }
    : r.committedAt !== null
      ? {
          level: "error" as const,
          outcome: "committed_refused",
          why: "the chain refused a committed debit; retrying with a backoff until its window closes",
        }
      : undefined;
  if (kept) {
    ctx.logger[kept.level]({ idemKey: r.idemKey, reason }, kept.why);
    ctx.metrics.settle.inc({ outcome: kept.outcome });
    await backOffSettlement(ctx.store, r, ctx.clock.now());
    return { kind: "pending", retryAfterSeconds: SETTLEMENT_RETRY_AFTER_SECONDS };
  }
  await ctx.store.transaction((tx) =>
    updateReservation(tx, r, { status: "released", failure: reason }, ctx.clock.now()),
  );
  ctx.logger.warn({ idemKey: r.idemKey, reason }, "settlement refused by the chain; released, nothing debited");
  ctx.metrics.settle.inc({ outcome: "failed" });
  return { kind: "settlement_failed", message: `the chain refused the debit (${reason}); nothing was debited` };
}

async function submit(ctx: FacilitatorContext, r: Reservation): Promise<DebitOutcome> {
  const a = r.payload.authorization;
  const uint = (field: "value" | "maxAmount" | "validAfter" | "validBefore") =>
    BigInt(defined(a[field], `the ${r.scheme} authorization's ${field}`));
  if (r.scheme === "exact") {
    return ctx.relayer.settleExact({
      resourceId: r.resourceId,
      from: a.from as Address,
      value: uint("value"),
      validAfter: uint("validAfter"),
      validBefore: uint("validBefore"),
      nonce: a.nonce as Hex,
      signature: r.payload.signature,
    });
  }
  // A committed debit was answered: nobody waits for its mining, so the relayer may hold it until its batch pays.
  return ctx.relayer.debit(
    {
      authorization: {
        buyer: a.buyer as Address,
        resourceId: a.resourceId as Hex,
        maxAmount: uint("maxAmount"),
        validAfter: uint("validAfter"),
        validBefore: uint("validBefore"),
        nonce: a.nonce as Hex,
      },
      amount: defined(r.amount, "the settling amount"),
      signature: r.payload.signature,
      signedByContract: r.payload.signedBy === "contract",
    },
    { mayHold: r.committedAt !== null },
  );
}

/**
 * Looks on chain for this reservation's own debit, which an earlier attempt may have landed: a debit in the escrow's
 * `BatchDebited` logs of exactly its buyer, nonce, resource and amount, mined at or after the block verify read the
 * chain at, in a transaction that carries this authorization's signature (of a 65-byte signature its `r`, which every encoding the relayer sends
 * carries as is, even the compact one; any other signature whole). Never an
 * older debit of the same buyer and nonce, which a new authorization reusing the nonce would otherwise pass for its
 * own when no block was mined in between.
 */
export async function findDebit(
  ctx: FacilitatorContext,
  r: Reservation,
): Promise<Extract<DebitOutcome, { kind: "debited" }> | null> {
  // A reservation made before from_block was kept has no block of its own: search the last LEGACY_SEARCH_BLOCKS.
  const fromBlock = r.fromBlock ?? (await ctx.chain.publicClient.getBlockNumber()) - LEGACY_SEARCH_BLOCKS;
  const payer = (r.scheme === "exact" ? r.payload.authorization.from : r.payload.authorization.buyer) as Address;
  const logs = await ctx.chain.debitedLogs(payer, r.idemKey, r.resourceId, fromBlock > 0n ? fromBlock : 0n);
  const signature = r.payload.signature.slice(2);
  const mark = signature.length === 130 ? signature.slice(0, 64) : signature;
  for (const log of logs) {
    if (log.resourceId !== r.resourceId || (r.amount !== null && log.amount !== r.amount)) continue;
    if (await ctx.chain.transactionCarries(log.transaction, mark)) return { kind: "debited", ...log };
  }
  return null;
}

/**
 * Stores the receipt and result of a debit that landed, and marks the reservation settled. A committed settlement's
 * result becomes confirmed: the same receipt (its settlementId and time) with `status: "confirmed"`, the transaction,
 * and the split the chain made. The answer returned is the stored one for a settle that waits for the chain; a
 * committed settlement's was given when it was committed, so its caller (the background drive, the retrier) gets
 * this receipt's and the store does not read the stored one back.
 */
export async function finalize(
  ctx: FacilitatorContext,
  r: Reservation,
  d: Extract<DebitOutcome, { kind: "debited" }>,
): Promise<SettlePaymentReturnType> {
  const now = ctx.clock.now();
  const settledAt = r.committedAt ?? now;
  const receipt: Receipt = {
    success: true,
    ...(r.committedAt !== null
      ? { status: "confirmed", settlementId: settlementIdOf({ escrow: ctx.escrow, buyer: d.payer, nonce: r.idemKey }) }
      : {}),
    scheme: r.scheme,
    network: NETWORK,
    transaction: d.transaction,
    payer: d.payer,
    payTo: r.resourceId,
    idemKey: r.idemKey,
    amount: d.amount.toString(),
    creatorAmount: d.creatorAmount.toString(),
    treasuryAmount: d.treasuryAmount.toString(),
    settledAt: new Date(settledAt * 1000).toISOString(),
  };
  // Before it is recorded mined, and so no longer held against the buyer: the escrow book must have its debit.
  await ctx.escrowBook
    .debitMined({ buyer: d.payer, nonce: r.idemKey, block: d.block })
    .catch((error: Error) => ctx.logger.error({ err: error.message }, "escrow book: a debited buyer's audit failed"));
  const encoded = encodeBase64Json(receipt);
  const stored = await recordSettlement(
    ctx.store,
    {
      idemKey: r.idemKey,
      buyer: r.buyer,
      resourceId: r.resourceId,
      receipt: encoded,
      settledAt,
      expiresAt: settledAt + RESULT_TTL_SECONDS,
    },
    { transaction: d.transaction, block: d.block },
    r.committedAt === null,
  );
  ctx.metrics.settle.inc({ outcome: "settled" });
  if (r.committedAt !== null) ctx.metrics.settlementLatency.observe(Math.max(0, now - r.committedAt));
  return { kind: "settled", body: stored ?? settleBody(receipt, encoded) };
}

/** Waits (bounded) for a result driven by another request or instance. */
async function awaitResult(ctx: FacilitatorContext, key: ReservationKey): Promise<SettlePaymentReturnType> {
  const deadline = Date.now() + ctx.settleWaitMs;
  for (let delay = 10; ; delay = Math.min(delay * 2, 250)) {
    const result = await findResult(ctx.store, key, ctx.clock.now());
    if (result) return { kind: "settled", body: result.body };
    const r = await findReservation(ctx.store, key);
    if (r && (r.status === "released" || r.status === "expired"))
      return { kind: "no_reservation", message: `the reservation was ${r.status}` };
    if (Date.now() >= deadline) return { kind: "pending", retryAfterSeconds: SETTLEMENT_RETRY_AFTER_SECONDS };
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
