import { BaseError } from "../protocol/errors.ts";

/**
 * A deployment or a check of one cannot go on: bad input (a parameters file, a setting, an unreachable RPC) or a chain
 * that does not hold what the record says. The message says what to fix; the commands print it without a stack trace.
 */
export class DeployError extends BaseError {
  override name = "DeployError";
}
