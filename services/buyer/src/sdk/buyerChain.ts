import type { Address, PublicClient } from "viem";
import { createPublicClient, getAddress, http } from "viem";
import { serviceChain } from "../../../protocol/chain.ts";

/**
 * The chain as the buyer trusts it: a client and the escrow address the buyer configured, and whether the addresses
 * creators name (card URIs, call URLs) may be loopback or private (a local development stack only).
 */
export type BuyerChain = { publicClient: PublicClient; escrow: Address; allowPrivateAddresses: boolean };

/**
 * The buyer's trusted view of the chain: the escrow address is a constant the buyer configures (for the test
 * network, published with the SDK); registry and asset are read from the escrow itself. A card URI or call URL must
 * resolve to public addresses only, unless `allowPrivateAddresses` (default false) says this is a local stack.
 * @example const chain = buyerChain({ rpcUrl, escrow })
 */
export function buyerChain({
  rpcUrl,
  escrow,
  allowPrivateAddresses = false,
}: {
  rpcUrl: string;
  escrow: Address;
  allowPrivateAddresses?: boolean;
}): BuyerChain {
  return {
    publicClient: createPublicClient({ chain: serviceChain(rpcUrl), transport: http(rpcUrl) }) as PublicClient,
    escrow: getAddress(escrow),
    allowPrivateAddresses,
  };
}
