import { BaseError } from "../protocol/errors.ts";
import type { ErrorCode } from "../protocol/reasons.ts";

/**
 * An HTTP failure with the shared error body: thrown by routes, rendered by `errorBodies`.
 * @example throw new HttpError(404, "not_found", "no such resource")
 */
export class HttpError extends BaseError {
  override name = "HttpError";
  readonly status: number;
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;

  constructor(status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}
