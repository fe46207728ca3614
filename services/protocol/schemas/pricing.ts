import { z } from "zod";
import { amountSchema } from "./primitives.ts";

/** Pricing as listed in the card and the index: `{ model, base, perKB, max }`, where `max` is the cap. */
export const pricingSchema = z.strictObject({
  model: z.literal("metered"),
  base: amountSchema,
  perKB: amountSchema,
  max: amountSchema,
});

/** Pricing as listed in the card and the index. */
export type Pricing = z.output<typeof pricingSchema>;

/** Metered pricing terms inside a 402 quote's escrow entry. */
export const meteredTermsSchema = z.strictObject({
  model: z.literal("metered"),
  base: amountSchema,
  perKB: amountSchema,
  computeMultiplier: z.number().min(0),
  maxResponseBytes: z.int().positive().optional(),
  errorPrice: amountSchema.optional(),
});

/** Metered pricing terms inside a 402 quote. */
export type MeteredTerms = z.output<typeof meteredTermsSchema>;
