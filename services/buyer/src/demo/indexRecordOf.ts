import type { Hex } from "viem";
import type { IndexRecord } from "../../../protocol/schemas/indexRecord.ts";
import { indexRecordSchema } from "../../../protocol/schemas/indexRecord.ts";

/** What the registry's `getResource` answers, as far as an index record shows it. */
export type RegisteredResource = {
  creator: string;
  agentId: bigint;
  slug: string;
  category: string;
  pricing: { base: bigint; perKB: bigint; max: bigint };
  bond: bigint;
  cardURI: string;
  active: boolean;
};

/**
 * The strict index record of a registered resource, as a small index built from the chain serves it (the demo's):
 * every field from the registry, with fixed middling scores (display data only).
 * @example const record = indexRecordOf(resourceId, await registry.read.getResource([resourceId]))
 */
export function indexRecordOf(resourceId: Hex, r: RegisteredResource): IndexRecord {
  return indexRecordSchema.parse({
    resourceId,
    creator: r.creator,
    agentId: r.agentId.toString(),
    slug: r.slug,
    category: r.category,
    pricing: {
      model: "metered",
      base: r.pricing.base.toString(),
      perKB: r.pricing.perKB.toString(),
      max: r.pricing.max.toString(),
    },
    reputation: 50,
    uptime: 100,
    health: { verified: true, score: 100 },
    bond: r.bond.toString(),
    cardUrl: r.cardURI,
    active: r.active,
  });
}
