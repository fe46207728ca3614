import type { Address, Hex } from "viem";
import { RESULT_TTL_SECONDS } from "../protocol/constants.ts";
import { maintainEmbedded } from "../store/maintainEmbedded.ts";
import type { Store } from "../store/store.ts";
import type { FacilitatorContext } from "./facilitatorContext.ts";
import { TransactionRevertedError } from "./relayer/sendTransaction.ts";
import { driveSettlement, finalize, findDebit } from "./settlePayment.ts";
import type { Reservation } from "./store/reservations.ts";
import {
  backOffSettlement,
  claimStaleSettling,
  expireReservations,
  purgeReservations,
  updateReservation,
} from "./store/reservations.ts";
import { failCommitment } from "./store/results.ts";
import { claimStrikes, finishStrike } from "./store/strikes.ts";

/** Seconds past `validBefore` after which an unconfirmed debit is given up: the contract refuses it by then. */
export const GIVE_UP_MARGIN_SECONDS = 30;
/**
 * How long a finished reservation is kept after its signed window closed: as long as results are served, so that a
 * late settle or release of it still finds it while its result is there. Its row, which holds its result, is kept
 * until the result has expired too (purgeReservations).
 */
export const RESERVATION_RETENTION_SECONDS = RESULT_TTL_SECONDS;
const STRIKE_ATTEMPTS = 10;
const RETRY_BACKOFF_SECONDS = 2;

/** Seconds between two reclaims of the embedded store's space (reclaimStoreSpace). */
export const RECLAIM_INTERVAL_SECONDS = 60;

/**
 * Reclaims, on PGlite, the space of the facilitator's purged rows and of the row versions each paid call leaves
 * behind, and checkpoints its write-ahead log (maintainEmbedded): a paid call writes about 5.7 KB of rows and index
 * entries (the three versions of its one row) and 6.6 KB of log (docs/benchmarks.md, "Store"), and without this the
 * store's files kept every byte of both, purged or not, until a restart; so does the escrow book, whose cursor row is
 * rewritten every block and whose buyers' rows every block that debits them. Run every RECLAIM_INTERVAL_SECONDS;
 * returns the milliseconds it held the store (0 on PostgreSQL, whose autovacuum and checkpointer do it).
 */
export async function reclaimStoreSpace(store: Store): Promise<number> {
  const started = performance.now();
  return (await maintainEmbedded(store, ["reservation", "strike", "buyer_book", "escrow_book"]))
    ? performance.now() - started
    : 0;
}

/**
 * One pass of the facilitator's background work: expire unsettled reservations (no strike), retry settlements
 * the chain did not confirm, send queued strikes, drop finished reservations and their results past retention. Safe on
 * many instances at once.
 * Settlement retries and strikes run side by side, each item on its own, so one payment the chain keeps failing
 * holds up neither the other settlements nor the strikes.
 */
export async function runBackgroundPass(ctx: FacilitatorContext): Promise<void> {
  const now = ctx.clock.now();
  await ctx.store.transaction((tx) => expireReservations(tx, now));
  await purgeReservations(ctx.store, now, RESERVATION_RETENTION_SECONDS);
  await Promise.all([retrySettlements(ctx, now), sendStrikes(ctx, now)]);
}

async function retrySettlements(ctx: FacilitatorContext, now: number): Promise<void> {
  const stale = await ctx.store.transaction((tx) => claimStaleSettling(tx, now, ctx.settleLeaseSeconds));
  await Promise.all(stale.map((r) => retrySettlement(ctx, r, now)));
}

async function retrySettlement(ctx: FacilitatorContext, r: Reservation, now: number): Promise<void> {
  // This instance's relayer holds the debit (until its batch pays) or is mining it: claiming the reservation renewed
  // its lease, and driving it again would only wait for that same debit, holding up this pass.
  if (r.scheme !== "exact" && ctx.relayer.debiting(r.payload.authorization.buyer as string, r.idemKey)) return;
  try {
    const landed = await findDebit(ctx, r);
    // The signed window, not the (shorter) reservation: a debit already sent can land until it closes.
    const signedValidBefore = Number(r.payload.authorization.validBefore);
    if (landed) {
      await finalize(ctx, r, landed);
    } else if (signedValidBefore > now) {
      await driveSettlement(ctx, r);
    } else if (now > signedValidBefore + GIVE_UP_MARGIN_SECONDS) {
      const failure = "the authorization expired before the chain confirmed the debit";
      if (r.committedAt !== null) {
        // Answered, never paid: the call's creator is owed this amount. Loud, and on /results as failed.
        await failCommitment(ctx.store, r, failure, now);
        ctx.metrics.settle.inc({ outcome: "committed_failed" });
        ctx.logger.error(
          { idemKey: r.idemKey },
          "a committed debit's window closed before it was mined; marked failed",
        );
        return;
      }
      await ctx.store.transaction((tx) => updateReservation(tx, r, { status: "released", failure }, now));
      ctx.logger.warn({ idemKey: r.idemKey }, "settlement window closed before the chain confirmed; released");
    }
  } catch (error) {
    ctx.logger.warn({ idemKey: r.idemKey, err: (error as Error).message }, "settlement retry failed; will try again");
    await backOffSettlement(ctx.store, r, now);
  }
}

async function sendStrikes(ctx: FacilitatorContext, now: number): Promise<void> {
  // The instance holding the facilitator signer's lease records the strikes; the others leave them queued.
  if (!ctx.relayer.holdsStrikeSigner()) return;
  const strikes = await ctx.store.transaction((tx) => claimStrikes(tx, now, 60));
  for (const strike of strikes) {
    try {
      const call = { buyer: strike.buyer as Address, nonce: strike.idemKey as Hex };
      if (await ctx.chain.strikeRecorded(call)) {
        await ctx.store.transaction((tx) => finishStrike(tx, strike, { status: "recorded" }));
        continue;
      }
      const txHash = await ctx.relayer.recordStrike(strike.resourceId as Hex, call, strike.reason);
      await ctx.store.transaction((tx) => finishStrike(tx, strike, { status: "recorded", txHash }));
      ctx.metrics.strikes.inc();
    } catch (error) {
      const status =
        strike.attempts >= STRIKE_ATTEMPTS || error instanceof TransactionRevertedError ? "failed" : "queued";
      const retryAt = now + RETRY_BACKOFF_SECONDS * 2 ** Math.min(strike.attempts, 5);
      await ctx.store.transaction((tx) =>
        finishStrike(tx, strike, { status, error: (error as Error).message.slice(0, 500), retryAt }),
      );
      ctx.logger.warn(
        { idemKey: strike.idemKey, buyer: strike.buyer, attempts: strike.attempts, err: (error as Error).message },
        "strike not recorded",
      );
    }
  }
}
