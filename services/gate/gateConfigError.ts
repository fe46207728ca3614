import { BaseError } from "../protocol/errors.ts";

/** Refused gate configuration, with every problem named. Thrown at start-up, never per request. */
export class GateConfigError extends BaseError {
  override name = "GateConfigError";
}
