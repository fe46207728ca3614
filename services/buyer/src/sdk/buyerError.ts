import { BaseError } from "../../../protocol/errors.ts";

/**
 * An expected failure of a buyer operation, with a snake_case `code` a tool or caller can branch on.
 * @example throw new BuyerError("marketplace_unavailable", "GET /resources failed: connect ECONNREFUSED")
 */
export class BuyerError extends BaseError {
  override name = "BuyerError";
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, { cause: options?.cause });
    this.code = code;
  }
}
