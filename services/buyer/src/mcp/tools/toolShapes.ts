import { z } from "zod";

/** A resource id argument (bytes32). */
export const resourceIdInput = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "a resource id is 0x followed by 64 hex digits")
  .describe("The resource id (bytes32) from search_resources");

/** An amount in base units, as a decimal string. */
export const amount = z.string().describe("Base units of the stablecoin (6 decimals: 1000000 = 1 USDC)");

/** The request body a tool sends to a resource. */
export const bodyInput = z.unknown().optional().describe("The JSON request body of the call (see the card's skills)");

/** Whether a value is a JSON object (not null, not an array). */
const isJsonObject = (value: unknown): boolean => value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * `call_resource`'s body: any JSON object, typed as an object so that a client never sends it as a string, described
 * with where the resource's own schema is (the typed tool of a resource takes its fields as arguments instead). It is
 * checked, not rebuilt: the object the client sent is the one paid for and posted, key for key. A `z.record` would
 * copy it and skip a `__proto__` key (zod's guard against prototype pollution), so `{"__proto__": {…}}` would be paid
 * for and sent as `{}`; `JSON.stringify` writes an own `__proto__` key as any other.
 */
export const requestBodyInput = z
  .unknown()
  .refine(isJsonObject, "the body must be a JSON object")
  .meta({ type: "object" })
  .optional()
  .describe(
    "The JSON request body, an object. Its schema is the request schema of the resource: the 402 quote's extensions.bazaar.schema.properties.input.properties.body (quote answers it), with an example request in extensions.bazaar.info.input.body and in the card's skills[].examples (get_card). A resource's own tool (listed when the server is scoped to it, or after add_tools) takes those fields as its arguments and types its answer.",
  );

/** Fields of every tool's answer: demo or live, and a notice when there is one. */
export const common = { mode: z.enum(["demo", "live"]), notice: z.string().optional() };

/** The receipt of a paid call, as the gate sent it. */
export const receiptShape = z.looseObject({
  /** Absent from a committed receipt (answered before mining); the tool's own `transaction` is the verified one. */
  transaction: z.string().optional(),
  status: z.enum(["committed", "confirmed"]).optional(),
  settlementId: z.string().optional(),
  payer: z.string(),
  payTo: z.string(),
  idemKey: z.string(),
  amount,
  creatorAmount: amount,
  treasuryAmount: amount,
  settledAt: z.string(),
});

/** The money fields of a card, pinned to the chain. */
export const pinnedShape = z.object({
  resourceId: z.string(),
  escrow: z.string(),
  asset: z.string(),
  cap: amount,
  creator: z.string(),
});

/** An amount as shown to an agent or a person: base units and its USDC reading (`formatAmount`). */
export const amountView = z.object({
  base: amount,
  usdc: z.string().describe('The same amount in USDC (6 decimals), e.g. "0.0012 USDC"'),
});

/** A call's price (`describePrice`). */
export const priceShape = z.object({
  formula: z.string(),
  base: amountView,
  perKB: amountView,
  computeMultiplier: z.number(),
  maxResponseBytes: z.number().optional(),
  byResponseSize: z.array(z.object({ responseKB: z.number(), cost: amountView })),
  cap: amountView,
});

/** A positive amount argument, in base units. */
export const amountInput = z
  .string()
  .regex(/^[1-9][0-9]{0,77}$/, "an amount is a positive whole number of base units (1000000 = 1 USDC)")
  .describe("Base units of the stablecoin (6 decimals: 1000000 = 1 USDC)");

/** A transaction the buyer's key sent, and the block it was mined in. */
export const sentShape = { transaction: z.string(), block: z.string() };
