import { z } from "zod";
import { amountSchema, isoTimestampSchema, resourceIdSchema } from "./primitives.ts";
import { whenParsed } from "./whenParsed.ts";

/** The body of `GET /revenue/:resourceId`: settled calls and their gross, creator and treasury totals. */
export const revenueSchema = z
  .strictObject({
    resourceId: resourceIdSchema,
    calls: z.int().nonnegative(),
    gross: amountSchema,
    creator: amountSchema,
    treasury: amountSchema,
    lastSettledAt: isoTimestampSchema.nullable(),
  })
  .refine((revenue) => BigInt(revenue.creator) + BigInt(revenue.treasury) === BigInt(revenue.gross), {
    message: "creator + treasury must equal gross",
    path: ["gross"],
    ...whenParsed,
  });

/** Aggregated revenue of a resource. */
export type Revenue = z.output<typeof revenueSchema>;
