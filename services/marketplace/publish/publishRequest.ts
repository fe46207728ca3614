import { maxUint128 } from "viem";
import { z } from "zod";
import { cardTemplateSchema } from "../../protocol/schemas/card.ts";
import { slugSchema } from "../../protocol/schemas/indexRecord.ts";
import {
  addressSchema,
  amountSchema,
  bytes32Schema,
  httpUrlSchema,
  signatureSchema,
  unixSecondsSchema,
} from "../../protocol/schemas/primitives.ts";
import { whenParsed } from "../../protocol/schemas/whenParsed.ts";

const uint128 = amountSchema.refine((value) => BigInt(value) <= maxUint128, {
  message: "must fit uint128",
  ...whenParsed,
});

/** A creator's signature that accepts any length ERC-1271 wallets produce, as well as a 65-byte ECDSA one. */
const creatorSignatureSchema = signatureSchema;

/**
 * The body of `POST /resources`. The creator's signatures carry the consent: `registration` is the EIP-712
 * `RegisterResource` (creator, slug, payout, category, base, perKB, max, deadline) under the registry's domain, and
 * `bond` an EIP-3009 `ReceiveWithAuthorization` from the creator to the registry. `card` is the card the resource
 * serves (its `identity.agentId` may still be `{{AGENT_ID}}`); `sampleRequest` is a body the resource's request
 * schema accepts, which the probe sends to `POST /call` to obtain the 402 quote.
 */
export const publishRequestSchema = z.strictObject({
  resourceUrl: httpUrlSchema,
  creator: addressSchema,
  slug: slugSchema,
  category: z.string().min(1).max(64),
  payout: addressSchema,
  pricing: z.strictObject({ base: uint128, perKB: uint128, max: uint128 }),
  card: cardTemplateSchema,
  sampleRequest: z.unknown().default({}),
  registration: z.strictObject({ deadline: unixSecondsSchema, signature: creatorSignatureSchema }),
  bond: z
    .strictObject({
      value: amountSchema,
      validAfter: unixSecondsSchema,
      validBefore: unixSecondsSchema,
      nonce: bytes32Schema,
      signature: creatorSignatureSchema,
    })
    .optional(),
});

/** A validated publish request. */
export type PublishRequest = z.output<typeof publishRequestSchema>;
