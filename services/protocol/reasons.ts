/** Reasons `POST /verify` refuses to reserve a payment. */
export const VERIFY_REASONS = ["insufficient_balance", "nonce_used", "bad_signature", "expired", "over_cap"] as const;

/** A reason `POST /verify` refuses to reserve a payment. */
export type VerifyReason = (typeof VERIFY_REASONS)[number];

/** Values of the 402 quote's `error`: no payment, an undecodable or misbound payment, or a verify refusal. */
export const QUOTE_ERRORS = ["payment_required", "invalid_payload", ...VERIFY_REASONS] as const;

/** A value of the 402 quote's `error`. */
export type QuoteError = (typeof QUOTE_ERRORS)[number];

/** Stages of the `POST /resources` publish pipeline, in the order they run. */
export const PUBLISH_STAGES = ["moderation", "price", "bond", "probe", "mint", "index"] as const;

/** A stage of the publish pipeline. */
export type PublishStage = (typeof PUBLISH_STAGES)[number];

/** Codes of `{ error: { code, message } }` bodies on every 4xx/5xx except the 402 quote. */
export const ERROR_CODES = [
  "no_reservation",
  "already_settled",
  "in_progress",
  "upstream_failed",
  "settlement_pending",
  "settlement_failed",
  "chain_unavailable",
  "relayer_unfunded",
  "fee_above_cap",
  "unsupported_media_type",
  "payload_too_large",
  "invalid_request",
  "not_found",
  "unauthorized",
  "internal_error",
  "indexer_unavailable",
  "card_invalid",
  "not_ready",
  "slug_taken",
  "handler_failed",
  "method_not_allowed",
  "facilitator_unavailable",
  "endpoint_busy",
  "publish_busy",
  "studio_busy",
  "provider_unavailable",
  "draft_not_verified",
  "payer_required",
  "request_mismatch",
  "draft_expired",
  ...PUBLISH_STAGES.map((stage) => `${stage}_failed` as const),
] as const;

/** A code of an error body. */
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Whether a value is one of the verify refusal reasons.
 * @example isVerifyReason('nonce_used') // true
 */
export function isVerifyReason(value: unknown): value is VerifyReason {
  return (VERIFY_REASONS as readonly unknown[]).includes(value);
}
