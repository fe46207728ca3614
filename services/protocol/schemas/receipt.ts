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

/** The decoded `X-PAYMENT-RESPONSE` receipt of a settled call; both schemes split through the escrow. */
export const receiptSchema = z
  .strictObject({
    success: z.literal(true),
    scheme: z.enum([SCHEME_ESCROW, SCHEME_EXACT]),
    network: z.literal(NETWORK),
    transaction: txHashSchema,
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
  });

/** The decoded settlement receipt. */
export type Receipt = z.output<typeof receiptSchema>;
