import { z } from "zod";
import { searchTerms } from "./searchTerms.ts";

/** Longest `q` accepted, in characters. */
export const MAX_QUERY_LENGTH = 256;

/** Most distinct terms a `q` may search for. */
export const MAX_QUERY_TERMS = 16;

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

const text = z
  .string()
  .min(1, "must not be empty")
  .max(MAX_QUERY_LENGTH, `must be at most ${MAX_QUERY_LENGTH} characters`)
  .transform((value, ctx) => {
    const terms = [...new Set(searchTerms(value))];
    if (terms.length === 0)
      ctx.addIssue({
        code: "custom",
        message: "must hold a word to search for (common words such as 'the' are not searched)",
      });
    if (terms.length > MAX_QUERY_TERMS)
      ctx.addIssue({ code: "custom", message: `must hold at most ${MAX_QUERY_TERMS} distinct words` });
    return terms;
  });

/**
 * The query of `GET /resources`: every parameter optional; `q` is a text searched in the cards (kept as its distinct
 * search terms); base units are digit strings compared as BigInt, scores numbers in [0, 100], `limit` 1..1000
 * (default 1000) and `offset` >= 0. `payable` keeps the listings whose base covers settlement at the current fee
 * (`true`) or those whose base no longer does (`false`); {@link withPriceFloor} turns it into price bounds.
 */
export const resourcesQuerySchema = z.strictObject({
  q: text.optional(),
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
  payable: z
    .enum(["true", "false"], "must be true or false")
    .transform((value) => value === "true")
    .optional(),
  limit: integer(1, 1000).default(1000),
  offset: integer(0, 1_000_000_000).default(0),
});

/** A validated `GET /resources` query. */
export type ResourcesQuery = z.output<typeof resourcesQuerySchema>;

const KNOWN = Object.keys(resourcesQuerySchema.shape);

/**
 * Validates a `GET /resources` query string (as Koa parses it). An unknown parameter is refused by name, so that a
 * misspelt or unsupported filter is never silently ignored; a known one given twice is refused, so that
 * `?minBond=1&minBond=x` cannot pass on its first value.
 * @example parseResourcesQuery({ minBond: "1000000", active: "true" }) // { ok: true, query: { minBond: 1000000n, active: true, limit: 1000, offset: 0 } }
 */
export function parseResourcesQuery(
  raw: Record<string, unknown>,
): { ok: true; query: ResourcesQuery } | { ok: false; message: string } {
  for (const key of Object.keys(raw)) {
    if (!KNOWN.includes(key)) {
      const name = key.length > 64 ? `${key.slice(0, 64)}…` : key;
      return {
        ok: false,
        message: `${JSON.stringify(name)} is not a parameter of GET /resources (known: ${KNOWN.join(", ")})`,
      };
    }
    if (Array.isArray(raw[key])) return { ok: false, message: `${key}: give this parameter once` };
  }
  const result = resourcesQuerySchema.safeParse(raw);
  if (!result.success) return { ok: false, message: z.prettifyError(result.error) };
  return { ok: true, query: result.data };
}

/**
 * A query with `payable` resolved against the price floor of the moment: `true` raises `minBasePrice` to the floor
 * (what verify takes now), `false` lowers `maxBasePrice` below it (what verify refuses now); a query without `payable`
 * is returned as it is.
 * @example withPriceFloor({ payable: true, limit: 1000, offset: 0 }, 7680n) // { minBasePrice: 7680n, limit: 1000, offset: 0 }
 */
export function withPriceFloor(query: ResourcesQuery, minimumBase: bigint): ResourcesQuery {
  const { payable, ...rest } = query;
  if (payable === undefined) return query;
  if (payable) {
    const least = rest.minBasePrice === undefined || rest.minBasePrice < minimumBase ? minimumBase : rest.minBasePrice;
    return { ...rest, minBasePrice: least };
  }
  const below = minimumBase - 1n;
  return {
    ...rest,
    maxBasePrice: rest.maxBasePrice === undefined || rest.maxBasePrice > below ? below : rest.maxBasePrice,
  };
}
