import type { Hex } from "viem";
import { BuyerError } from "./buyerError.ts";

/**
 * A payment was signed and sent, and what became of it is not known: the answer was lost, was not a success (which
 * a resource or anything between may say falsely after settling), or carried a receipt that does not check. The
 * chain may still debit it until `validBefore`; only the chain (or a `/results` entry it confirms) tells. Recover it
 * by its idemKey, never by paying again.
 * @example throw new PaymentUnknownError({ idemKey, validBefore, reason: "the resource answered 502 upstream_failed" })
 */
export class PaymentUnknownError extends BuyerError {
  override name = "PaymentUnknownError";
  readonly idemKey: Hex;
  /** Unix seconds: from then on the nonce can no longer be debited. */
  readonly validBefore: bigint;
  /** The HTTP status the paid call answered, when it answered. */
  readonly status: number | undefined;
  constructor(p: { idemKey: Hex; validBefore: bigint; reason: string; status?: number; cause?: unknown }) {
    const until = new Date(Number(p.validBefore) * 1000).toISOString();
    super(
      "payment_unknown",
      `payment ${p.idemKey} was sent and may have been debited (${p.reason}). Do not pay again: recover it by its idemKey (recover_result), which reads the chain; it can be debited until ${until}, after which the chain tells for good`,
      { cause: p.cause },
    );
    this.idemKey = p.idemKey;
    this.validBefore = p.validBefore;
    this.status = p.status;
  }
}
