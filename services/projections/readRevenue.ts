import { eq } from "@ponder/client";
import type { Hex } from "viem";
import type { Revenue } from "../protocol/schemas/revenue.ts";
import type { ProjectionsClient } from "./createProjectionsClient.ts";
import { projections } from "./createProjectionsClient.ts";

/**
 * The revenue of a resource, derived by the indexer from `BatchDebited` logs: settled calls and the gross, creator and
 * treasury sums; `null` when the resource was never registered. A registered resource without debits has zeros.
 * @example const revenue = await readRevenue(indexer, resourceId)
 */
export async function readRevenue(indexer: ProjectionsClient, resourceId: Hex): Promise<Revenue | null> {
  const id = resourceId.toLowerCase() as Hex;
  const [rows, known] = await Promise.all([
    indexer.db.select().from(projections.revenue).where(eq(projections.revenue.resourceId, id)),
    indexer.db
      .select({ resourceId: projections.resource.resourceId })
      .from(projections.resource)
      .where(eq(projections.resource.resourceId, id)),
  ]);
  const row = rows[0];
  if (!row && known.length === 0) return null;
  return {
    resourceId: id,
    calls: Number(row?.calls ?? 0n),
    gross: (row?.gross ?? 0n).toString(),
    creator: (row?.creator ?? 0n).toString(),
    treasury: (row?.treasury ?? 0n).toString(),
    lastSettledAt: row ? new Date(Number(row.lastSettledAt) * 1000).toISOString() : null,
  };
}
