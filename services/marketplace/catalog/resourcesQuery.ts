import { z } from "zod";

const baseUnits = z
  .string()
  .regex(/^[0-9]{1,78}$/, "must be a digit string of base units (no sign, fraction or exponent)")
  .transform((value) => BigInt(value));

const score = z
  .string()
  .regex(/^[0-9]{1,3}(\.[0-9]{1,6})?$/, "must be a number from 0 to 100")
  .transform(Number)
  .refine((value) => value <= 100, "must be a number from 0 to 100");

const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]{1,10}$/, `must be an integer from ${min} to ${max}`)
    .transform(Number)
    .refine((value) => value >= min && value <= max, `must be an integer from ${min} to ${max}`);

/**
 * The query of `GET /resources`: every filter optional; base units are digit strings compared as BigInt, scores
 * numbers in [0, 100], `limit` 1..1000 (default 1000) and `offset` >= 0. Unknown parameters are ignored (zod strips them).
 */
export const resourcesQuerySchema = z.object({
  category: z.string().min(1, "must not be empty").max(64).optional(),
  active: z
    .enum(["true", "false"], "must be true or false")
    .transform((value) => value === "true")
    .optional(),
  minBond: baseUnits.optional(),
  minBasePrice: baseUnits.optional(),
  maxBasePrice: baseUnits.optional(),
  minReputation: score.optional(),
  minUptime: score.optional(),
  limit: integer(1, 1000).default(1000),
  offset: integer(0, 1_000_000_000).default(0),
});

/** A validated `GET /resources` query. */
export type ResourcesQuery = z.output<typeof resourcesQuerySchema>;

/**
 * Validates a `GET /resources` query string (as Koa parses it). A known parameter given twice is refused, so that
 * `?minBond=1&minBond=x` cannot pass on its first value.
 * @example parseResourcesQuery({ minBond: "1000000", active: "true" }) // { ok: true, query: { minBond: 1000000n, active: true, limit: 1000, offset: 0 } }
 */
export function parseResourcesQuery(
  raw: Record<string, unknown>,
): { ok: true; query: ResourcesQuery } | { ok: false; message: string } {
  for (const key of Object.keys(resourcesQuerySchema.shape)) {
    if (Array.isArray(raw[key])) return { ok: false, message: `${key}: give this parameter once` };
  }
  const result = resourcesQuerySchema.safeParse(raw);
  if (!result.success) return { ok: false, message: z.prettifyError(result.error) };
  return { ok: true, query: result.data };
}
