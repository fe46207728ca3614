/** A payment as the facilitator stores it and the gate decodes it: scheme, signed authorization, signature. */
export type PaymentIdentity = { scheme: string; authorization: Record<string, string>; signature: string };

/**
 * Whether `stored` is exactly `payment`: the same scheme, the same signed authorization field for field (hex compared
 * without regard to case, so the same bytes) and the same signature bytes. Only such a payment is "the same payment"
 * whose settled result a gate may replay; any other payment that reuses the nonce is `nonce_used`.
 * @example samePayment(payment, found.payment) // false when only maxAmount differs
 */
export function samePayment(payment: PaymentIdentity, stored: unknown): boolean {
  if (stored === null || typeof stored !== "object") return false;
  const other = stored as Partial<Record<keyof PaymentIdentity, unknown>>;
  if (other.scheme !== payment.scheme || typeof other.signature !== "string") return false;
  if (other.signature.toLowerCase() !== payment.signature.toLowerCase()) return false;
  const authorization = other.authorization;
  if (authorization === null || typeof authorization !== "object") return false;
  const theirs = Object.entries(authorization as Record<string, unknown>);
  const ours = Object.entries(payment.authorization);
  if (theirs.length !== ours.length) return false;
  return ours.every(([key, value]) => {
    const stored = (authorization as Record<string, unknown>)[key];
    return typeof stored === "string" && stored.toLowerCase() === value.toLowerCase();
  });
}
