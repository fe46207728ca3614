import { z } from "zod";
import { decodeBase64Json } from "../base64.ts";
import { NETWORK, SCHEME_ESCROW, SCHEME_EXACT, X402_VERSION } from "../constants.ts";
import {
  addressSchema,
  amountSchema,
  bytes32Schema,
  resourceIdSchema,
  signatureSchema,
  unixSecondsSchema,
} from "./primitives.ts";
import { whenParsed } from "./whenParsed.ts";

/** The signed EIP-712 `DebitAuthorization` of the escrow scheme, in wire form. */
export const escrowAuthorizationSchema = z.strictObject({
  buyer: addressSchema,
  resourceId: resourceIdSchema,
  maxAmount: amountSchema,
  validAfter: unixSecondsSchema,
  validBefore: unixSecondsSchema,
  nonce: bytes32Schema,
});

/** A `DebitAuthorization` in wire form. */
export type EscrowAuthorization = z.output<typeof escrowAuthorizationSchema>;

/** The signed EIP-3009 `TransferWithAuthorization` of the exact scheme, in wire form. */
export const exactAuthorizationSchema = z.strictObject({
  from: addressSchema,
  to: addressSchema,
  value: amountSchema,
  validAfter: unixSecondsSchema,
  validBefore: unixSecondsSchema,
  nonce: bytes32Schema,
});

/** A `TransferWithAuthorization` in wire form. */
export type ExactAuthorization = z.output<typeof exactAuthorizationSchema>;

/** The `accepts` entry a v2 envelope says it pays; kept loose because clients may echo it partially. */
export const acceptedSchema = z.looseObject({
  scheme: z.enum([SCHEME_ESCROW, SCHEME_EXACT]),
  network: z.literal(NETWORK),
});

function paymentShape<Scheme extends string, Authorization extends z.ZodType>(
  scheme: Scheme,
  authorization: Authorization,
) {
  return z.strictObject({
    scheme: z.literal(scheme),
    network: z.literal(NETWORK),
    authorization,
    signature: signatureSchema,
    accepted: acceptedSchema.optional(),
  });
}

const escrowPaymentSchema = paymentShape(SCHEME_ESCROW, escrowAuthorizationSchema);
const exactPaymentSchema = paymentShape(SCHEME_EXACT, exactAuthorizationSchema);
const x402Version = { x402Version: z.literal(X402_VERSION).optional() };

function acceptedMatchesScheme(payment: { scheme: string; accepted?: { scheme: string } | undefined }) {
  return !payment.accepted || payment.accepted.scheme === payment.scheme;
}

const acceptedMismatch = { message: "accepted.scheme must equal scheme", path: ["accepted", "scheme"], ...whenParsed };

/** A normalised payment payload: one shape per scheme, whichever wire shape it arrived in. */
export const paymentPayloadSchema = z
  .discriminatedUnion("scheme", [escrowPaymentSchema, exactPaymentSchema])
  .refine(acceptedMatchesScheme, acceptedMismatch);

/** A normalised payment payload. */
export type PaymentPayload = z.output<typeof paymentPayloadSchema>;

/** The flat wire shape `{ x402Version?, scheme, network, authorization, signature }`. */
export const flatPaymentPayloadSchema = z
  .discriminatedUnion("scheme", [escrowPaymentSchema.extend(x402Version), exactPaymentSchema.extend(x402Version)])
  .refine(acceptedMatchesScheme, acceptedMismatch);

/** The x402 v2 envelope `{ x402Version: 2, accepted, payload: { authorization, signature } }`. */
export const paymentEnvelopeSchema = z.strictObject({
  x402Version: z.literal(X402_VERSION),
  resource: z.looseObject({}).optional(),
  accepted: acceptedSchema,
  payload: z.strictObject({ authorization: z.unknown(), signature: z.unknown() }),
  extensions: z.record(z.string(), z.unknown()).optional(),
});

/** Outcome of normalising a payment payload: the payload, or why it is refused. */
export type NormalizePaymentPayloadReturnType =
  | { ok: true; payload: PaymentPayload }
  | { ok: false; reason: "invalid_payload"; message: string };

function invalid(message: string): NormalizePaymentPayloadReturnType {
  return { ok: false, reason: "invalid_payload", message };
}

/**
 * Validates a decoded payment payload in either wire shape and returns one normalised shape.
 * @example normalizePaymentPayload(JSON.parse(json)) // { ok: true, payload: { scheme, network, authorization, signature } }
 */
export function normalizePaymentPayload(input: unknown): NormalizePaymentPayloadReturnType {
  if (typeof input === "object" && input !== null && "payload" in input) {
    const envelope = paymentEnvelopeSchema.safeParse(input);
    if (!envelope.success) return invalid(z.prettifyError(envelope.error));
    const { accepted, payload } = envelope.data;
    const payment = paymentPayloadSchema.safeParse({
      scheme: accepted.scheme,
      network: accepted.network,
      ...payload,
      accepted,
    });
    return payment.success ? { ok: true, payload: payment.data } : invalid(z.prettifyError(payment.error));
  }
  const flat = flatPaymentPayloadSchema.safeParse(input);
  if (!flat.success) return invalid(z.prettifyError(flat.error));
  const { x402Version: _version, ...payload } = flat.data;
  return { ok: true, payload };
}

/**
 * Decodes an `X-PAYMENT` / `PAYMENT-SIGNATURE` header value (base64 JSON) into a normalised payload.
 * @example decodePaymentHeader(request.headers['x-payment'])
 */
export function decodePaymentHeader(header: string): NormalizePaymentPayloadReturnType {
  try {
    return normalizePaymentPayload(decodeBase64Json(header));
  } catch (error) {
    return invalid((error as Error).message);
  }
}
