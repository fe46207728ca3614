import { z } from "zod";
import { NETWORK, SCHEME_ESCROW, SCHEME_EXACT } from "../constants.ts";
import {
  addressSchema,
  amountSchema,
  bytes32Schema,
  isoTimestampSchema,
  resourceIdSchema,
  txHashSchema,
} from "./primitives.ts";
import { whenParsed } from "./whenParsed.ts";

/**
 * Where a settlement stands: `committed` (recorded by the facilitator, the debit not mined yet) or `confirmed`
 * (mined). A receipt without `status` is confirmed (the form before committed settlement existed).
 */
export const SETTLEMENT_STATUSES = ["committed", "confirmed"] as const;

/**
 * The decoded `X-PAYMENT-RESPONSE` receipt of a settled call; both schemes split through the escrow. A committed
 * receipt (escrow scheme only) names its `settlementId` and has no `transaction` yet; a confirmed one has it.
 */
export const receiptSchema = z
  .strictObject({
    success: z.literal(true),
    status: z.enum(SETTLEMENT_STATUSES).optional(),
    settlementId: bytes32Schema.optional(),
    scheme: z.enum([SCHEME_ESCROW, SCHEME_EXACT]),
    network: z.literal(NETWORK),
    transaction: txHashSchema.optional(),
    payer: addressSchema,
    payTo: resourceIdSchema,
    idemKey: bytes32Schema,
    amount: amountSchema,
    creatorAmount: amountSchema,
    treasuryAmount: amountSchema,
    settledAt: isoTimestampSchema,
  })
  .refine((receipt) => BigInt(receipt.creatorAmount) + BigInt(receipt.treasuryAmount) === BigInt(receipt.amount), {
    message: "creatorAmount + treasuryAmount must equal amount",
    path: ["amount"],
    ...whenParsed,
  })
  .refine((receipt) => (receipt.status === "committed") !== (receipt.transaction !== undefined), {
    message: "a committed receipt has no transaction yet; a confirmed one must name it",
    path: ["transaction"],
    ...whenParsed,
  })
  .refine((receipt) => receipt.status !== "committed" || receipt.settlementId !== undefined, {
    message: "a committed receipt names its settlementId",
    path: ["settlementId"],
    ...whenParsed,
  })
  .refine((receipt) => receipt.status !== "committed" || receipt.scheme === SCHEME_ESCROW, {
    message: "only the escrow scheme settles committed; exact waits for its transfer",
    path: ["status"],
    ...whenParsed,
  });

/** The decoded settlement receipt. */
export type Receipt = z.output<typeof receiptSchema>;
