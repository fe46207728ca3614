import type { z } from "zod";
import type { IndexRecord } from "../../../protocol/schemas/indexRecord.ts";
import { redactUrl } from "../sdk/redactUrl.ts";
import { searchResources } from "../sdk/searchResources.ts";
import { MarketplaceUnreachableError } from "./errors.ts";
import type { Skipped } from "./skipped.ts";

/** The largest page `GET /resources` serves (PROTOCOL.md). */
export const INDEX_PAGE_LIMIT = 1000;

/** What {@link readIndex} returns: every valid active record, and the rows it left out. */
export type ReadIndexReturnType = { records: IndexRecord[]; skipped: Skipped[] };

/**
 * Reads every page of a marketplace's active endpoints (`GET /resources?active=true`, `limit`/`offset` until a
 * short page or `X-Total-Count`) through the SDK's {@link searchResources}, which validates each row against the
 * strict index-record schema; rows that fail it are counted in `skipped`. A page that cannot be read is an error.
 * @throws {MarketplaceUnreachableError} when any page cannot be fetched or is not a JSON array.
 * @example const { records, skipped } = await readIndex("http://127.0.0.1:4000")
 */
export async function readIndex(marketplaceUrl: string): Promise<ReadIndexReturnType> {
  const records: IndexRecord[] = [];
  const skipped: Skipped[] = [];
  for (let offset = 0; ; offset += INDEX_PAGE_LIMIT) {
    let page: Awaited<ReturnType<typeof searchResources>>;
    try {
      page = await searchResources(marketplaceUrl, { active: true, limit: INDEX_PAGE_LIMIT, offset });
    } catch (error) {
      throw new MarketplaceUnreachableError(
        redactUrl(marketplaceUrl),
        error instanceof Error ? error.message : String(error),
        error,
      );
    }
    records.push(...page.resources);
    const rows = page.resources.length + page.skipped;
    if (page.skipped > 0)
      skipped.push({
        source: `${page.skipped} index record(s) of rows ${offset}-${offset + rows - 1}`,
        reason: "they fail the strict index-record schema",
      });
    if (rows < INDEX_PAGE_LIMIT || offset + rows >= page.total) break;
  }
  return { records, skipped };
}

/** The first issue of a zod error, as `path: message`. */
export function firstIssue(error: z.ZodError): string {
  const [issue] = error.issues;
  if (!issue) return "invalid";
  return issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message;
}
