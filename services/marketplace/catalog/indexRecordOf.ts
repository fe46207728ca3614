import type { Hex } from "viem";
import { getAddress } from "viem";
import type { IndexRecord } from "../../protocol/schemas/indexRecord.ts";
import { indexRecordSchema } from "../../protocol/schemas/indexRecord.ts";
import type { ChainResource } from "./catalogEntry.ts";
import type { ProbeHistory } from "./scores.ts";
import { healthOf, reputationOf, uptimeOf } from "./scores.ts";

/** What an index record is built from: the chain's facts, settled calls and probes, and the catalog's settings. */
export type IndexRecordOfParameters = {
  resourceId: Hex;
  chain: ChainResource;
  settled: number;
  history: ProbeHistory;
  cardUrl: string;
  uptimeWindow: number;
  healthWindow: number;
};

/**
 * The index record of a listed resource, validated against the index-record schema: the record, or the schema's
 * problems (such a resource is not listed).
 * @example const built = indexRecordOf({ resourceId, chain, settled: 3, history, cardUrl, uptimeWindow: 100, healthWindow: 10 })
 */
export function indexRecordOf(
  p: IndexRecordOfParameters,
): { ok: true; record: IndexRecord } | { ok: false; problem: string } {
  const { chain } = p;
  const record = {
    resourceId: p.resourceId,
    creator: getAddress(chain.creator),
    agentId: chain.agentId.toString(),
    slug: chain.slug,
    category: chain.category,
    pricing: {
      model: "metered" as const,
      base: chain.base.toString(),
      perKB: chain.perKB.toString(),
      max: chain.max.toString(),
    },
    reputation: reputationOf(p.settled, chain.strikesTotal),
    uptime: uptimeOf(p.history, p.uptimeWindow),
    health: healthOf(p.history, p.healthWindow),
    bond: chain.bond.toString(),
    cardUrl: p.cardUrl,
    active: chain.active,
  };
  const checked = indexRecordSchema.safeParse(record);
  if (!checked.success)
    return {
      ok: false,
      problem: checked.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "),
    };
  return { ok: true, record };
}
