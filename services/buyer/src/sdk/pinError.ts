import { BuyerError } from "./buyerError.ts";

/**
 * The quote or card disagrees with the chain or with the buyer's trusted constants: nothing is signed.
 * @example throw new PinError(`the quoted cap ${cap} differs from the registered cap ${registered}`)
 */
export class PinError extends BuyerError {
  override name = "PinError";
  constructor(message: string, code = "pin_failed") {
    super(code, message);
  }
}
