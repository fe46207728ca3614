import { z } from "zod";
import { FACILITATOR_BATCH_MAX_CALLS } from "../../protocol/constants.ts";
import {
  addressSchema,
  bytes32Schema,
  positiveAmountSchema,
  resourceIdSchema,
} from "../../protocol/schemas/primitives.ts";

/** `POST /verify` request. The payment payload is judged by verify itself (an invalid one is data, not a 400). */
export const verifyRequestSchema = z.object({
  paymentPayload: z.unknown().refine((v) => v !== undefined, "paymentPayload is required"),
  resourceId: resourceIdSchema,
  maxTimeoutSeconds: z.number().int().min(1).max(86_400),
  /** The request the payment is for (services/protocol/requestHash.ts); optional, so older gates keep working. */
  requestHash: bytes32Schema.optional(),
});

/** `POST /release` request. */
export const releaseRequestSchema = z.object({
  idemKey: bytes32Schema,
  /** Whose reservation of `idemKey`; without it the route acts only when one buyer holds the nonce. */
  payer: addressSchema.optional(),
  resourceId: resourceIdSchema,
  strikeReason: z.string().min(1).max(200).optional(),
});

/** `POST /settle` request: the validated response the gate is about to send, and its metered price. */
export const settleRequestSchema = z.object({
  idemKey: bytes32Schema,
  /** Whose reservation of `idemKey`; without it the route acts only when one buyer holds the nonce. */
  payer: addressSchema.optional(),
  resourceId: resourceIdSchema,
  amount: positiveAmountSchema,
  response: z.object({
    status: z.number().int().min(200).max(299),
    contentType: z.string().min(1).max(200),
    body: z.unknown(),
  }),
});

/** Path parameter that must be a bytes32. */
export const bytes32ParamSchema = bytes32Schema;

/** `GET /results/:idemKey` query: whose result (optional, as for release and settle). */
export const resultQuerySchema = z.object({ payer: addressSchema.optional() });

/**
 * `POST /batch` request: payment calls, each with its route, its caller token (caller auth checks each call on its
 * own; a call without one is refused when caller auth is on) and the body its own route takes, judged as that route
 * judges it.
 */
export const batchRequestSchema = z.object({
  calls: z
    .array(
      z.object({
        route: z.enum(["verify", "release", "settle"]),
        token: z.string().min(1).max(4_096).optional(),
        body: z.unknown(),
      }),
    )
    .min(1)
    .max(FACILITATOR_BATCH_MAX_CALLS),
});
