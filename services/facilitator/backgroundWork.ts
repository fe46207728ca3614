import type { FacilitatorContext } from "./context.ts";
import { driveSettlement, finalize, findDebit, SETTLE_LEASE_SECONDS } from "./settlePayment.ts";
import { claimStaleSettling, expireReservations, updateReservation } from "./store/reservations.ts";
import { purgeResults } from "./store/results.ts";
import { claimStrikes, finishStrike } from "./store/strikes.ts";

/** Seconds past `validBefore` after which an unconfirmed debit is given up: the contract refuses it by then. */
export const GIVE_UP_MARGIN_SECONDS = 30;
const STRIKE_ATTEMPTS = 10;
const RETRY_BACKOFF_SECONDS = 2;

/**
 * One pass of the facilitator's background work: expire unsettled reservations (no strike), retry settlements
 * the chain did not confirm, send queued strikes, drop results past retention. Safe on many instances at once.
 */
export async function runBackgroundPass(ctx: FacilitatorContext): Promise<void> {
  const now = ctx.clock.now();
  await ctx.store.transaction((tx) => expireReservations(tx, now));
  await ctx.store.transaction((tx) => purgeResults(tx, now));
  await retrySettlements(ctx, now);
  await sendStrikes(ctx, now);
}

async function retrySettlements(ctx: FacilitatorContext, now: number): Promise<void> {
  const stale = await ctx.store.transaction((tx) => claimStaleSettling(tx, now, SETTLE_LEASE_SECONDS));
  for (const r of stale) {
    try {
      const landed = await findDebit(ctx, r);
      // The signed window, not the (shorter) reservation: a debit already sent can land until it closes.
      const signedValidBefore = Number(r.payload.authorization.validBefore);
      if (landed) {
        await finalize(ctx, r, landed);
      } else if (signedValidBefore > now) {
        await driveSettlement(ctx, r);
      } else if (now > signedValidBefore + GIVE_UP_MARGIN_SECONDS) {
        await ctx.store.transaction((tx) => updateReservation(tx, r.idemKey, { status: "released" }, now));
        ctx.logger.warn(
          { idemKey: r.idemKey },
          "settlement window closed before the chain confirmed; released, nothing debited",
        );
      }
    } catch (error) {
      ctx.logger.warn({ idemKey: r.idemKey, err: (error as Error).message }, "settlement retry failed; will try again");
      await ctx.store.query("UPDATE reservation SET lease_until = $2 WHERE idem_key = $1 AND status = 'settling'", [
        r.idemKey,
        now + RETRY_BACKOFF_SECONDS,
      ]);
    }
  }
}

async function sendStrikes(ctx: FacilitatorContext, now: number): Promise<void> {
  const strikes = await ctx.store.transaction((tx) => claimStrikes(tx, now, 60));
  for (const strike of strikes) {
    try {
      if (await ctx.chain.strikeRecorded(strike.idemKey as `0x${string}`)) {
        await ctx.store.transaction((tx) => finishStrike(tx, strike.idemKey, { status: "recorded" }));
        continue;
      }
      const txHash = await ctx.relayer.recordStrike(
        strike.resourceId as `0x${string}`,
        strike.idemKey as `0x${string}`,
        strike.reason,
      );
      await ctx.store.transaction((tx) => finishStrike(tx, strike.idemKey, { status: "recorded", txHash }));
      ctx.metrics.strikes.inc();
    } catch (error) {
      const status = strike.attempts >= STRIKE_ATTEMPTS ? "failed" : "queued";
      const retryAt = now + RETRY_BACKOFF_SECONDS * 2 ** Math.min(strike.attempts, 5);
      await ctx.store.transaction((tx) =>
        finishStrike(tx, strike.idemKey, { status, error: (error as Error).message.slice(0, 500), retryAt }),
      );
      ctx.logger.warn(
        { idemKey: strike.idemKey, attempts: strike.attempts, err: (error as Error).message },
        "strike not recorded",
      );
    }
  }
}
