import type { Hex } from "viem";
import { keccak256, stringToBytes } from "viem";
import { z } from "zod";
import { liveFieldsOf, withLiveFields } from "../../protocol/liveCardFields.ts";
import { cardSchema } from "../../protocol/schemas/card.ts";
import type { MarketplaceContext } from "../marketplaceContext.ts";
import { findListing } from "../store/listings.ts";

/** What reading a stored card found. */
export type ReadCardOutcome =
  | { kind: "card"; text: string; ttlSeconds: number }
  | { kind: "unknown" }
  | { kind: "invalid"; reason: string };

/**
 * Reads the card of a listed resource and validates it on every read: strict card schema, keccak256 of its bytes
 * equal to the `cardHash` registered on chain, `x402.payTo` equal to the resource id and `identity.agentId` equal to
 * the agent bound on chain. Unknown or malformed ids are unknown; a stored card that fails any check is invalid. The
 * card is served with `health` and `bond` taken from the same index record `GET /resources` serves (the stored,
 * hashed card holds the neutral values there), so a card never contradicts the index.
 * @example const outcome = await readCard(ctx, "0xabc…")
 */
export async function readCard(ctx: MarketplaceContext, rawId: string): Promise<ReadCardOutcome> {
  if (!/^0x[0-9a-fA-F]{64}$/.test(rawId)) return { kind: "unknown" };
  const resourceId = rawId.toLowerCase() as Hex;
  const entry = ctx.catalog.get(resourceId);
  if (!entry?.listed || !entry.chain) return { kind: "unknown" };
  const listing = await findListing(ctx.store, resourceId);
  if (!listing || listing.status === "removed") return { kind: "unknown" };
  let json: unknown;
  try {
    json = JSON.parse(listing.cardText);
  } catch {
    return { kind: "invalid", reason: "the stored card is not JSON" };
  }
  const parsed = cardSchema.safeParse(json);
  if (!parsed.success)
    return { kind: "invalid", reason: `the stored card fails validation: ${z.prettifyError(parsed.error)}` };
  const hash = keccak256(stringToBytes(listing.cardText));
  if (hash !== entry.chain.cardHash.toLowerCase()) {
    return {
      kind: "invalid",
      reason: `the stored card hashes to ${hash}, not to the cardHash ${entry.chain.cardHash} registered on chain`,
    };
  }
  if (parsed.data.x402.payTo !== resourceId)
    return { kind: "invalid", reason: "the stored card's x402.payTo is not the resource id" };
  if (parsed.data.identity.agentId !== entry.chain.agentId.toString()) {
    return { kind: "invalid", reason: "the stored card's identity.agentId is not the agent registered on chain" };
  }
  if (!entry.record) return { kind: "unknown" };
  const served = withLiveFields(json as Record<string, unknown>, liveFieldsOf(entry.record));
  return { kind: "card", text: JSON.stringify(served), ttlSeconds: parsed.data.cache.ttlSeconds };
}
