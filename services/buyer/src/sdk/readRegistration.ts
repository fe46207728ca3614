import type { Address, Hex } from "viem";
import { getAddress } from "viem";
import { abiOf } from "../../../protocol/artifacts.ts";
import { isChainUnavailable } from "../../../protocol/chain.ts";
import type { BuyerChain } from "./buyerChain.ts";
import { PinError } from "./pinError.ts";

/** A resource as the registry of the trusted escrow holds it. */
export type Registration = {
  resourceId: Hex;
  creator: Address;
  agentId: bigint;
  active: boolean;
  /** The slug the resource id was derived from (keccak256(abi.encode(creator, slug))), the creator's choice. */
  slug: string;
  category: string;
  pricing: { base: bigint; perKB: bigint; max: bigint };
  cardUri: string;
  cardHash: Hex;
};

/**
 * Reads a resource's registration from the registry the trusted escrow points to: what the buyer may believe about
 * it without asking anyone else (its creator, whether it is active, its pricing and cap, and the card URI and hash).
 * Throws `PinError` `unknown_resource` when the registry does not know it.
 * @example const { active, cardHash } = await readRegistration(chain, resourceId)
 */
export async function readRegistration(chain: BuyerChain, resourceId: Hex): Promise<Registration> {
  const registry = await chain.publicClient.readContract({
    address: chain.escrow,
    abi: abiOf("PaymentEscrow"),
    functionName: "registry",
  });
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
  return {
    resourceId,
    creator: getAddress(resource.creator),
    agentId: resource.agentId,
    active: resource.active,
    slug: resource.slug,
    category: resource.category,
    pricing: { base: resource.pricing.base, perKB: resource.pricing.perKB, max: resource.pricing.max },
    cardUri: resource.cardURI,
    cardHash: resource.cardHash.toLowerCase() as Hex,
  };
}
