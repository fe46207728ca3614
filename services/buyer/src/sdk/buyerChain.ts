import type { Address, PublicClient } from "viem";
import { createPublicClient, getAddress, http } from "viem";
import { serviceChain } from "../../../protocol/chain.ts";

/** The chain as the buyer trusts it: a client and the escrow address the buyer configured. */
export type BuyerChain = { publicClient: PublicClient; escrow: Address };

/**
 * The buyer's trusted view of the chain: the escrow address is a constant the buyer configures (for the test
 * network, published with the SDK); registry and asset are read from the escrow itself.
 * @example const chain = buyerChain({ rpcUrl, escrow })
 */
export function buyerChain({ rpcUrl, escrow }: { rpcUrl: string; escrow: Address }): BuyerChain {
  return {
    publicClient: createPublicClient({ chain: serviceChain(rpcUrl), transport: http(rpcUrl) }) as PublicClient,
    escrow: getAddress(escrow),
  };
}
