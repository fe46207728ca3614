import type { IndexRecord } from "../../../protocol/schemas/indexRecord.ts";
import { indexRecordSchema } from "../../../protocol/schemas/indexRecord.ts";
import { BuyerError } from "./buyerError.ts";
import { errorOf, fetchJson } from "./fetchJson.ts";

/** The marketplace's `GET /resources` filters (docs: services/marketplace/README.md). */
export type ResourceFilters = {
  /**
   * Words to find in the cards (name, description, skills): only matching resources, best match first. Its bounds
   * (length, number of words) are the marketplace's (services/marketplace/README.md): it refuses a query outside them
   * with 400, thrown as `invalid_request` naming `q`.
   */
  q?: string;
  category?: string;
  active?: boolean;
  minBond?: string;
  minBasePrice?: string;
  maxBasePrice?: string;
  minReputation?: number;
  minUptime?: number;
  /** `true`: only listings whose base covers settlement at the chain's current fee (verify takes them); `false`: the others. */
  payable?: boolean;
  limit?: number;
  offset?: number;
};

export type SearchResourcesReturnType = {
  resources: IndexRecord[];
  /** The marketplace's `X-Total-Count` (all matches, before paging). */
  total: number;
  /** Rows that failed the strict index-record schema and were left out. */
  skipped: number;
};

/**
 * Searches the marketplace index (`GET /resources`, each filter sent as its query parameter): by meaning with `q`, and
 * by the filters. Rows are display data only: nothing is ever signed against them. A query the marketplace refuses
 * (400) throws `invalid_request` with its message.
 * @example const { resources } = await searchResources(marketplaceUrl, { q: "palindrome check", active: true })
 */
export async function searchResources(
  marketplaceUrl: string,
  filters: ResourceFilters = {},
): Promise<SearchResourcesReturnType> {
  const url = new URL("resources", marketplaceUrl.endsWith("/") ? marketplaceUrl : `${marketplaceUrl}/`);
  for (const [key, value] of Object.entries(filters)) if (value !== undefined) url.searchParams.set(key, String(value));
  const { response, json } = await fetchJson(url.toString(), {}, "marketplace", { allowPrivate: true });
  if (response.status !== 200) {
    const error = errorOf(json, response.status);
    // On one line: the marketplace names the parameter it refuses on the message's last line (`→ at q`).
    throw new BuyerError(
      response.status === 400 ? "invalid_request" : "marketplace_error",
      `GET /resources: ${error.message.replace(/\s*\n\s*/g, " ")}`,
    );
  }
  if (!Array.isArray(json)) throw new BuyerError("marketplace_error", "GET /resources did not answer an array");
  const resources: IndexRecord[] = [];
  for (const row of json) {
    const parsed = indexRecordSchema.safeParse(row);
    if (parsed.success) resources.push(parsed.data);
  }
  const total = Number(response.headers.get("x-total-count") ?? json.length);
  return { resources, total: Number.isFinite(total) ? total : json.length, skipped: json.length - resources.length };
}
