import type { Address, Hex } from "viem";
import { getAddress } from "viem";
import { abiOf } from "../../../protocol/artifacts.ts";
import { cardHashOf } from "../../../protocol/cardHash.ts";
import { CHAIN_ID } from "../../../protocol/constants.ts";
import type { Card } from "../../../protocol/schemas/card.ts";
import { cardSchema } from "../../../protocol/schemas/card.ts";
import type { BuyerChain } from "./buyerChain.ts";
import { fetchJson } from "./fetchJson.ts";
import { PinError } from "./pinError.ts";
import type { Registration } from "./readRegistration.ts";
import { readRegistration } from "./readRegistration.ts";
import { redactUrl } from "./redactUrl.ts";

/** A card read from the URI the registry holds for the resource, with the on-chain facts it was checked against. */
export type PinnedCard = {
  card: Card;
  resourceId: Hex;
  creator: Address;
  active: boolean;
  /** The registered cap (`pricing.max`), the most one call can cost. */
  cap: bigint;
  asset: Address;
  escrow: Address;
  cardUri: string;
  /** Everything the registry holds for the resource (slug, pricing, cardHash…), read with the card. */
  registration: Registration;
};

/**
 * Reads a resource's card the way a buyer may trust it: the card URI comes from the registry the trusted escrow
 * points to (never from an index row), the card must pass the strict schema and hash (live fields neutral) to the
 * registry's `cardHash`, so its call `url` is the one registered, and its identity and money fields (agentId, payTo,
 * escrow, asset, chain, cap) must equal the chain's.
 * @example const { card, cap } = await readPinnedCard(chain, resourceId)
 */
export async function readPinnedCard(chain: BuyerChain, resourceId: Hex): Promise<PinnedCard> {
  const [asset, registration] = await Promise.all([
    chain.publicClient.readContract({ address: chain.escrow, abi: abiOf("PaymentEscrow"), functionName: "token" }),
    readRegistration(chain, resourceId),
  ]);
  const { json } = await fetchJson(registration.cardUri, {}, "card", {
    allowPrivate: chain.allowPrivateAddresses,
    timeoutMs: 5_000,
  });
  const parsed = cardSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PinError(
      `the card registered for ${resourceId} (${redactUrl(registration.cardUri)}) is missing or fails the strict schema${issue ? ` (${issue.path.join(".")}: ${issue.message})` : ""}`,
      "invalid_card",
    );
  }
  const card = parsed.data;
  const hash = cardHashOf(json);
  if (hash !== registration.cardHash)
    throw new PinError(
      `the card served at ${redactUrl(registration.cardUri)} hashes to ${hash}, not to the cardHash ${registration.cardHash} registered for ${resourceId}`,
      "invalid_card",
    );
  if (card.identity.agentId !== registration.agentId.toString())
    throw new PinError(`the card names agent ${card.identity.agentId}, the registry ${registration.agentId}`);
  if (card.x402.payTo !== resourceId) throw new PinError("the registered card names another resource");
  if (getAddress(card.x402.escrow) !== chain.escrow)
    throw new PinError(`the card names escrow ${card.x402.escrow}, not the trusted ${chain.escrow}`);
  if (getAddress(card.x402.asset) !== getAddress(asset))
    throw new PinError(`the card names asset ${card.x402.asset}, the escrow holds ${asset}`);
  if (card.x402.chainId !== CHAIN_ID) throw new PinError(`the card is for chain ${card.x402.chainId}`);
  if (BigInt(card.x402.pricing.max) !== registration.pricing.max)
    throw new PinError(
      `the card's cap ${card.x402.pricing.max} differs from the registered cap ${registration.pricing.max}`,
    );
  return {
    card,
    resourceId,
    creator: registration.creator,
    active: registration.active,
    cap: registration.pricing.max,
    asset: getAddress(asset),
    escrow: chain.escrow,
    cardUri: registration.cardUri,
    registration,
  };
}
