import { z } from "zod";
import { pricingSchema } from "./pricing.ts";
import {
  addressSchema,
  agentIdSchema,
  amountSchema,
  healthSchema,
  httpUrlSchema,
  nonEmptyStringSchema,
  resourceIdSchema,
  scoreSchema,
} from "./primitives.ts";

/** Resource slug: lowercase letters and digits in dash-separated words, at most 64 characters. */
export const slugSchema = z
  .string()
  .max(64)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "slug must be lowercase words of a-z and 0-9 separated by single dashes");

/** One element of the `GET /resources` array: display data only, never a source of money fields. */
export const indexRecordSchema = z.strictObject({
  resourceId: resourceIdSchema,
  creator: addressSchema.optional(),
  agentId: agentIdSchema,
  slug: slugSchema,
  category: nonEmptyStringSchema,
  pricing: pricingSchema,
  reputation: scoreSchema,
  uptime: scoreSchema,
  health: healthSchema,
  bond: amountSchema,
  cardUrl: httpUrlSchema,
  active: z.boolean(),
});

/** One element of the `GET /resources` array. */
export type IndexRecord = z.output<typeof indexRecordSchema>;
