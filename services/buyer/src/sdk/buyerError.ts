/**
 * An expected failure of a buyer operation, with a snake_case `code` a tool or caller can branch on.
 * @example throw new BuyerError("marketplace_unavailable", "GET /resources failed: connect ECONNREFUSED")
 */
export class BuyerError extends Error {
  override name = "BuyerError";
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
