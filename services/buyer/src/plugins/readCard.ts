import type { Hex } from "viem";
import { type Card, cardSchema } from "../../../protocol/schemas/card.ts";
import { errorOf, fetchJson } from "../sdk/fetchJson.ts";
import { redactUrl } from "../sdk/redactUrl.ts";
import { firstIssue } from "./readIndex.ts";
import type { Skipped } from "./skipped.ts";

/** What {@link readCard} returns: the strictly valid card and the resource id it was checked against, or why not. */
export type ReadCardReturnType = { ok: true; card: Card; resourceId: Hex } | { ok: false; skipped: Skipped };

/**
 * The resource id a card URL names: the bytes32 path segment of the marketplace's card route
 * (`{base_url}/<resourceId>/.well-known/agent-card.json`), lowercased; undefined when the URL has none.
 * @example resourceIdInCardUrl("http://127.0.0.1:4000/0xab…/.well-known/agent-card.json")
 */
export function resourceIdInCardUrl(url: string): Hex | undefined {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const segment = path.split("/").find((part) => /^0x[0-9a-fA-F]{64}$/.test(part));
  return segment ? (segment.toLowerCase() as Hex) : undefined;
}

/**
 * Fetches one agent card, validates it against the strict card schema and checks that its `x402.payTo` is the
 * resource id it is served for (the given one, else the one its URL names). Every failure is a reason naming the
 * card, never an exception: a bad card is skipped, the rest of the generation goes on.
 * @example const read = await readCard(record.cardUrl, record.resourceId)
 */
export async function readCard(url: string, expectedResourceId?: Hex): Promise<ReadCardReturnType> {
  const skip = (reason: string): ReadCardReturnType => ({
    ok: false,
    skipped: { source: `card ${redactUrl(url)}`, reason },
  });
  const resourceId = (expectedResourceId?.toLowerCase() as Hex | undefined) ?? resourceIdInCardUrl(url);
  if (!resourceId)
    return skip("its URL names no resource id (expected {base_url}/<resourceId>/.well-known/agent-card.json)");
  let fetched: Awaited<ReturnType<typeof fetchJson>>;
  try {
    fetched = await fetchJson(url, {}, "card", { allowPrivate: true });
  } catch (error) {
    return skip(error instanceof Error ? error.message : String(error));
  }
  if (fetched.response.status !== 200)
    return skip(`HTTP ${fetched.response.status}: ${errorOf(fetched.json, fetched.response.status).message}`);
  const parsed = cardSchema.safeParse(fetched.json);
  if (!parsed.success) return skip(`fails the strict card schema: ${firstIssue(parsed.error)}`);
  if (parsed.data.x402.payTo !== resourceId)
    return skip(`x402.payTo ${parsed.data.x402.payTo} differs from its resource id ${resourceId}`);
  return { ok: true, card: parsed.data, resourceId };
}
