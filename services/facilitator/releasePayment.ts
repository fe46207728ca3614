import type { Hex } from "viem";
import type { FacilitatorContext } from "./facilitatorContext.ts";
import { findReservation, updateReservation } from "./store/reservations.ts";
import { enqueueStrike, strikeQueued } from "./store/strikes.ts";

export type ReleasePaymentParameters = {
  idemKey: Hex;
  /** The payer whose reservation of `idemKey` this releases. */
  buyer: Hex;
  resourceId: Hex;
  strikeReason?: string | undefined;
};

/** `POST /release`'s outcome. */
export type ReleasePaymentReturnType =
  | { kind: "released"; body: { released: true; idemKey: Hex; strikeRecorded: boolean } }
  | { kind: "no_reservation"; message: string }
  | { kind: "already_settled"; message: string };

/**
 * Releases a reservation so its cap is free again; with a `strikeReason` a strike against the resource is queued
 * for the chain (at most one per call: per buyer and nonce). Idempotent: releasing again answers the same and strikes nothing more.
 * @example await releasePayment(ctx, { idemKey, buyer, resourceId, strikeReason: "handler_timeout" })
 */
export async function releasePayment(
  ctx: FacilitatorContext,
  p: ReleasePaymentParameters,
): Promise<ReleasePaymentReturnType> {
  const now = ctx.clock.now();
  ctx.reservedTerms.take(p);
  return ctx.store.transaction(async (tx) => {
    const r = await findReservation(tx, p, true);
    if (!r || r.resourceId !== p.resourceId)
      return { kind: "no_reservation" as const, message: "no reservation for this idemKey and resource" };
    if (r.status === "settling" || r.status === "settled") {
      return { kind: "already_settled" as const, message: "the payment is being or has been settled" };
    }
    let strikeRecorded: boolean;
    if (r.status === "released") {
      strikeRecorded = await strikeQueued(tx, r);
    } else {
      await updateReservation(tx, r, { status: "released" }, now);
      strikeRecorded = p.strikeReason
        ? await enqueueStrike(
            tx,
            { idemKey: r.idemKey, buyer: r.buyer, resourceId: r.resourceId, reason: p.strikeReason },
            now,
          )
        : false;
      ctx.metrics.release.inc({ strike: String(strikeRecorded) });
    }
    return { kind: "released" as const, body: { released: true as const, idemKey: r.idemKey, strikeRecorded } };
  });
}
