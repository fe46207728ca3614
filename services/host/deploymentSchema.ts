import { isIPv4, isIPv6 } from "node:net";
import { z } from "zod";
import { PRIVATE_V4_RANGES } from "../http/privateAddress.ts";
import { MAX_RESPONSE_BYTES_LIMIT } from "../protocol/constants.ts";
import { cardTemplateSchema } from "../protocol/schemas/card.ts";
import { slugSchema } from "../protocol/schemas/indexRecord.ts";
import { pricingSchema } from "../protocol/schemas/pricing.ts";
import { addressSchema, agentIdSchema } from "../protocol/schemas/primitives.ts";

/** Largest handler source the host accepts. */
export const MAX_SOURCE_BYTES = 1_048_576;

const jsonSchema = z.union([z.record(z.string(), z.unknown()), z.boolean()]);

const cidr = z.string().refine((value) => {
  if (value === "public") return true;
  const [address, prefix, ...rest] = value.split("/");
  if (rest.length > 0 || !address || !prefix || !/^\d{1,3}$/.test(prefix)) return false;
  return (isIPv4(address) && Number(prefix) <= 32) || (isIPv6(address) && Number(prefix) <= 128);
}, 'must be "public" or a CIDR such as 203.0.113.0/24');

/** `POST /deployments` body. */
export const deploymentRequestSchema = z.strictObject({
  slug: slugSchema,
  creator: addressSchema,
  source: z
    .string()
    .min(1)
    .refine((s) => Buffer.byteLength(s, "utf8") <= MAX_SOURCE_BYTES, `source is limited to ${MAX_SOURCE_BYTES} bytes`),
  requestSchema: jsonSchema,
  responseSchema: jsonSchema,
  /** A body the request schema accepts; a failed paid call is a strike only when this sample fails too. */
  sampleRequest: z.record(z.string(), z.unknown()).default({}),
  card: cardTemplateSchema,
  pricing: pricingSchema,
  computeMultiplier: z.number().positive().finite().default(1),
  maxResponseBytes: z.int().positive().max(MAX_RESPONSE_BYTES_LIMIT).default(65_536),
  /** Outbound network the handler may reach (workerd allow-list); absent or empty: none. */
  allowNetwork: z.array(cidr).max(32).optional(),
});

/** A validated deploy request. */
export type DeploymentRequest = z.output<typeof deploymentRequestSchema>;

/** `POST /deployments/:slug/identity` body: the ERC-8004 agent id minted for the resource. */
export const identityRequestSchema = z.strictObject({ agentId: agentIdSchema });

function v4(address: string): number {
  return address.split(".").reduce((n, octet) => n * 256 + Number(octet), 0);
}

function overlaps(a: string, b: string): boolean {
  const [aa, ap] = a.split("/") as [string, string];
  const [ba, bp] = b.split("/") as [string, string];
  const prefix = Math.min(Number(ap), Number(bp));
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (v4(aa) & mask) >>> 0 === (v4(ba) & mask) >>> 0;
}

/**
 * The first allow-list entry that reaches loopback, link-local (cloud metadata), private or multicast space, or
 * undefined. IPv6 entries must lie in global unicast space (2000::/3).
 * @example privateNetworkEntry(['127.0.0.1/32']) // '127.0.0.1/32'
 */
export function privateNetworkEntry(allow: readonly string[]): string | undefined {
  return allow.find((entry) => {
    if (entry === "public") return false;
    const [address] = entry.split("/") as [string];
    if (isIPv4(address)) return PRIVATE_V4_RANGES.some((range) => overlaps(entry, range));
    const prefix = Number(entry.split("/")[1]);
    const first = Number.parseInt(address.split(":")[0] || "0", 16);
    return prefix < 3 || (first & 0xe000) !== 0x2000;
  });
}
