import { z } from "zod";
import {
  CARD_PLACEHOLDERS,
  CARD_PROTOCOL_VERSION,
  CHAIN_ID,
  NETWORK,
  PLACEHOLDER_AGENT_ID,
  PLACEHOLDER_CALL_URL,
  PLACEHOLDER_RESOURCE_ID,
  SCHEME_ESCROW,
} from "../constants.ts";
import { SchemaValidationError } from "../errors.ts";
import { pricingSchema } from "./pricing.ts";
import {
  addressSchema,
  agentIdSchema,
  amountSchema,
  healthSchema,
  httpUrlSchema,
  nonEmptyStringSchema,
  resourceIdSchema,
} from "./primitives.ts";

const modesSchema = z.array(nonEmptyStringSchema);

const skillSchema = z.strictObject({
  id: nonEmptyStringSchema,
  name: nonEmptyStringSchema,
  description: nonEmptyStringSchema,
  tags: z.array(nonEmptyStringSchema),
  inputModes: modesSchema,
  outputModes: modesSchema,
  examples: z.array(z.string()).optional(),
});

function cardShape<Url extends z.ZodType, PayTo extends z.ZodType, AgentId extends z.ZodType>(fields: {
  url: Url;
  payTo: PayTo;
  agentId: AgentId;
}) {
  return z.strictObject({
    protocolVersion: z.literal(CARD_PROTOCOL_VERSION),
    name: nonEmptyStringSchema,
    description: nonEmptyStringSchema,
    url: fields.url,
    version: nonEmptyStringSchema,
    capabilities: z.strictObject({ streaming: z.boolean() }),
    defaultInputModes: modesSchema.min(1),
    defaultOutputModes: modesSchema.min(1),
    skills: z.array(skillSchema).min(1),
    x402: z.strictObject({
      scheme: z.literal(SCHEME_ESCROW),
      network: z.literal(NETWORK),
      chainId: z.literal(CHAIN_ID),
      asset: addressSchema,
      escrow: addressSchema,
      pricing: pricingSchema,
      payTo: fields.payTo,
    }),
    cache: z.strictObject({ ttlSeconds: z.int().nonnegative() }),
    identity: z.strictObject({
      standard: z.literal("erc-8004"),
      chainId: z.int().positive(),
      agentId: fields.agentId,
    }),
    health: healthSchema,
    bond: z.strictObject({ posted: amountSchema }),
  });
}

type Path = readonly (string | number)[];

function placeholderPaths(value: unknown, path: Path = []): { path: Path; value: string }[] {
  if (typeof value === "string") {
    return CARD_PLACEHOLDERS.some((placeholder) => value.includes(placeholder)) ? [{ path, value }] : [];
  }
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([key, child]) =>
      placeholderPaths(child, [...path, Array.isArray(value) ? Number(key) : key]),
    );
  }
  return [];
}

const allowedTemplatePlaceholders = [
  { path: "url", value: PLACEHOLDER_CALL_URL },
  { path: "x402.payTo", value: PLACEHOLDER_RESOURCE_ID },
  { path: "identity.agentId", value: PLACEHOLDER_AGENT_ID },
];

function rejectPlaceholders(allowed: typeof allowedTemplatePlaceholders) {
  return (card: unknown, ctx: z.RefinementCtx) => {
    for (const found of placeholderPaths(card)) {
      const isAllowed = allowed.some((slot) => slot.path === found.path.join(".") && slot.value === found.value);
      if (!isAllowed)
        ctx.addIssue({ code: "custom", path: [...found.path], message: "card still holds a placeholder" });
    }
  };
}

/** A finalized agent card: strict at every level, with no placeholder anywhere. */
export const cardSchema = cardShape({
  url: httpUrlSchema,
  payTo: resourceIdSchema,
  agentId: agentIdSchema,
}).superRefine(rejectPlaceholders([]));

/** A finalized agent card. */
export type Card = z.output<typeof cardSchema>;

/** A generated card: like {@link cardSchema}, but `url`, `x402.payTo` and `identity.agentId` may be exactly their placeholders. */
export const cardTemplateSchema = cardShape({
  url: z.union([z.literal(PLACEHOLDER_CALL_URL), httpUrlSchema]),
  payTo: z.union([z.literal(PLACEHOLDER_RESOURCE_ID), resourceIdSchema]),
  agentId: z.union([z.literal(PLACEHOLDER_AGENT_ID), agentIdSchema]),
}).superRefine(rejectPlaceholders(allowedTemplatePlaceholders));

/** A generated card that may still hold its deploy-time placeholders. */
export type CardTemplate = z.output<typeof cardTemplateSchema>;

/** Deploy-time values that replace a generated card's placeholders. */
export type FinalizeCardParameters = { callUrl: string; resourceId: string; agentId: string | bigint };

/**
 * Replaces the placeholders of a generated card with deploy-time values and validates the result.
 * @throws {SchemaValidationError} when the finalized card is not valid.
 * @example finalizeCard(template, { callUrl: 'https://r.example/call', resourceId, agentId: 7n })
 */
export function finalizeCard(template: z.input<typeof cardTemplateSchema>, parameters: FinalizeCardParameters): Card {
  const result = cardSchema.safeParse({
    ...template,
    url: parameters.callUrl,
    x402: { ...template.x402, payTo: parameters.resourceId },
    identity: { ...template.identity, agentId: String(parameters.agentId) },
  });
  if (!result.success) throw new SchemaValidationError("card", z.prettifyError(result.error), result.error);
  return result.data;
}
