import { MAX_AUTHORIZATION_SECONDS, SIGNING_MARGIN_SECONDS } from "../../../protocol/constants.ts";
import { BuyerError } from "./buyerError.ts";
import type { PinnedTerms } from "./pinPaymentTerms.ts";

/**
 * Seconds the SDK keeps below MAX_AUTHORIZATION_SECONDS when it signs a long window: a facilitator whose clock is this
 * much behind the buyer's still finds `validBefore` within the hour it accepts.
 */
export const CLOCK_SKEW_SECONDS = 30;

/** The longest window the SDK ever signs, whatever the quote asks or the buyer allows. */
export const MAX_SIGNED_WINDOW_SECONDS = MAX_AUTHORIZATION_SECONDS - CLOCK_SKEW_SECONDS;

/**
 * How long (seconds from now) the SDK signs an authorization for: what the call needs (`maxTimeoutSeconds` +
 * SIGNING_MARGIN_SECONDS) or, when longer, what the quote asks (`extra.authorizationSeconds`, so the debit can be held
 * until its batch pays), clamped to the buyer's own cap and to MAX_SIGNED_WINDOW_SECONDS. A gate asking for more than
 * that gets the cap, never more.
 * @throws {BuyerError} `invalid_option` when `buyerCapSeconds` is not a whole number of seconds from 1 to
 * MAX_AUTHORIZATION_SECONDS.
 * @example authorizationWindow({ maxTimeoutSeconds: 60, authorizationSeconds: 3600 }, 600) // 600
 */
export function authorizationWindow(
  terms: Pick<PinnedTerms, "maxTimeoutSeconds" | "authorizationSeconds">,
  buyerCapSeconds: number = MAX_AUTHORIZATION_SECONDS,
): number {
  if (!Number.isSafeInteger(buyerCapSeconds) || buyerCapSeconds <= 0 || buyerCapSeconds > MAX_AUTHORIZATION_SECONDS)
    throw new BuyerError(
      "invalid_option",
      `the longest authorization window must be a whole number of seconds from 1 to ${MAX_AUTHORIZATION_SECONDS}`,
    );
  const needed = terms.maxTimeoutSeconds + SIGNING_MARGIN_SECONDS;
  const asked = terms.authorizationSeconds;
  if (asked === undefined || !Number.isSafeInteger(asked) || asked <= needed) return needed;
  return Math.max(needed, Math.min(asked, buyerCapSeconds, MAX_SIGNED_WINDOW_SECONDS));
}
