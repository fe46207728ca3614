import type { Address, Hex } from "viem";
import { getAddress } from "viem";
import { abiOf } from "../../../protocol/artifacts.ts";
import { cardHashOf } from "../../../protocol/cardHash.ts";
import { isChainUnavailable } from "../../../protocol/chain.ts";
import { CHAIN_ID } from "../../../protocol/constants.ts";
import type { Card } from "../../../protocol/schemas/card.ts";
import { cardSchema } from "../../../protocol/schemas/card.ts";
import type { BuyerChain } from "./buyerChain.ts";
import { fetchJson } from "./fetchJson.ts";
import { PinError } from "./pinError.ts";

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
};

/**
 * Reads a resource's card the way a buyer may trust it: the card URI comes from the registry the trusted escrow
 * points to (never from an index row), the card must pass the strict schema and hash (live fields neutral) to the
 * registry's `cardHash`, so its call `url` is the one registered, and its identity and money fields (agentId, payTo,
 * escrow, asset, chain, cap) must equal the chain's.
 * @example const { card, cap } = await readPinnedCard(chain, resourceId)
 */
export async function readPinnedCard(chain: BuyerChain, resourceId: Hex): Promise<PinnedCard> {
  const escrowAbi = abiOf("PaymentEscrow");
  const [asset, registry] = await Promise.all([
    chain.publicClient.readContract({ address: chain.escrow, abi: escrowAbi, functionName: "token" }),
    chain.publicClient.readContract({ address: chain.escrow, abi: escrowAbi, functionName: "registry" }),
  ]);
  const resource = await chain.publicClient
    .readContract({
      address: registry,
      abi: abiOf("ResourceRegistry"),
      functionName: "getResource",
      args: [resourceId],
    })
    .catch((error: Error) => {
      if (!isChainUnavailable(error))
        throw new PinError(`resource ${resourceId} is not registered on chain`, "unknown_resource");
      throw error;
    });
  const { json } = await fetchJson(resource.cardURI, {}, "card", 5_000);
  const parsed = cardSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PinError(
      `the card registered for ${resourceId} (${resource.cardURI}) is missing or fails the strict schema${issue ? ` (${issue.path.join(".")}: ${issue.message})` : ""}`,
      "invalid_card",
    );
  }
  const card = parsed.data;
  const hash = cardHashOf(json);
  if (hash !== resource.cardHash.toLowerCase())
    throw new PinError(
      `the card served at ${resource.cardURI} hashes to ${hash}, not to the cardHash ${resource.cardHash} registered for ${resourceId}`,
      "invalid_card",
    );
  if (card.identity.agentId !== resource.agentId.toString())
    throw new PinError(`the card names agent ${card.identity.agentId}, the registry ${resource.agentId}`);
  if (card.x402.payTo !== resourceId) throw new PinError("the registered card names another resource");
  if (getAddress(card.x402.escrow) !== chain.escrow)
    throw new PinError(`the card names escrow ${card.x402.escrow}, not the trusted ${chain.escrow}`);
  if (getAddress(card.x402.asset) !== getAddress(asset))
    throw new PinError(`the card names asset ${card.x402.asset}, the escrow holds ${asset}`);
  if (card.x402.chainId !== CHAIN_ID) throw new PinError(`the card is for chain ${card.x402.chainId}`);
  if (BigInt(card.x402.pricing.max) !== resource.pricing.max)
    throw new PinError(
      `the card's cap ${card.x402.pricing.max} differs from the registered cap ${resource.pricing.max}`,
    );
  return {
    card,
    resourceId,
    creator: getAddress(resource.creator),
    active: resource.active,
    cap: resource.pricing.max,
    asset: getAddress(asset),
    escrow: chain.escrow,
    cardUri: resource.cardURI,
  };
}
