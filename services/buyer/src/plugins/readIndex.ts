import type { z } from "zod";
import { type IndexRecord, indexRecordSchema } from "../../../protocol/schemas/indexRecord.ts";
import { MarketplaceUnreachableError } from "./errors.ts";
import { fetchJson } from "./fetchJson.ts";
import type { Skipped } from "./skipped.ts";

/** The largest page `GET /resources` serves (PROTOCOL.md). */
export const INDEX_PAGE_LIMIT = 1000;

/** What {@link readIndex} returns: every valid, active record and every record it left out. */
export type ReadIndexReturnType = { records: IndexRecord[]; skipped: Skipped[] };

/**
 * Reads every page of a marketplace's `GET /resources` and validates each record against the strict index-record
 * schema. A record that fails it, or is inactive, is skipped with a reason; a page that cannot be read is an error.
 * @throws {MarketplaceUnreachableError} when any page cannot be fetched or is not a JSON array.
 * @example const { records, skipped } = await readIndex("http://127.0.0.1:4000")
 */
export async function readIndex(marketplaceUrl: string): Promise<ReadIndexReturnType> {
  const records: IndexRecord[] = [];
  const skipped: Skipped[] = [];
  for (let offset = 0; ; offset += INDEX_PAGE_LIMIT) {
    const url = `${marketplaceUrl}/resources?limit=${INDEX_PAGE_LIMIT}&offset=${offset}`;
    const page = await fetchJson(url);
    if (!page.ok) throw new MarketplaceUnreachableError(marketplaceUrl, `GET ${url}: ${page.reason}`, page.cause);
    if (!Array.isArray(page.body))
      throw new MarketplaceUnreachableError(marketplaceUrl, `GET ${url} did not answer a JSON array`);
    for (const [i, raw] of page.body.entries()) {
      const parsed = indexRecordSchema.safeParse(raw);
      const name = nameOf(raw, offset + i);
      if (!parsed.success)
        skipped.push({ source: name, reason: `fails the index-record schema: ${firstIssue(parsed.error)}` });
      else if (!parsed.data.active) skipped.push({ source: name, reason: "inactive in the index" });
      else records.push(parsed.data);
    }
    const total = Number(page.headers.get("x-total-count"));
    const done = Number.isSafeInteger(total) ? offset + page.body.length >= total : true;
    if (page.body.length < INDEX_PAGE_LIMIT || done) break;
  }
  return { records, skipped };
}

function nameOf(raw: unknown, position: number): string {
  const record = (raw ?? {}) as { slug?: unknown; resourceId?: unknown };
  const parts = [record.slug, record.resourceId].filter((part) => typeof part === "string");
  return `index record ${parts.length ? parts.join(" ") : `#${position}`}`;
}

/** The first issue of a zod error, as `path: message`. */
export function firstIssue(error: z.ZodError): string {
  const [issue] = error.issues;
  if (!issue) return "invalid";
  return issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message;
}
