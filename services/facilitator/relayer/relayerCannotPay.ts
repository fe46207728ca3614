import { BaseError } from "../../protocol/errors.ts";

/** Why the relayer cannot pay for new debits now: no signer holds a full batch's gas, or the fee is above the cap. */
export type CannotPayReason = "relayer_unfunded" | "fee_above_cap";

/**
 * The relayer cannot pay for a full batch now, so new escrow payments are not committed: answered 503 with the reason
 * and Retry-After, to be retried once the relayer is funded or the fee falls. Debits already committed are kept.
 * @example throw new RelayerCannotPayError("fee_above_cap", "the chain's fee 3 gwei is above MAX_FEE_PER_GAS 2 gwei")
 */
export class RelayerCannotPayError extends BaseError {
  override name = "RelayerCannotPayError";
  readonly reason: CannotPayReason;
  constructor(reason: CannotPayReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
