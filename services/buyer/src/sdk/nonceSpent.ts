import type { Address, Hex } from "viem";
import { abiOf } from "../../../protocol/artifacts.ts";
import type { BuyerChain } from "./buyerChain.ts";

const escrowAbi = abiOf("PaymentEscrow");

/**
 * Whether the escrow has spent `nonce` of `buyer` (at the chain's latest block): no payment carrying it can be debited
 * again, and one was. Throws when the chain cannot be read.
 * @example if (await nonceSpent(chain, buyer, idemKey)) … // debited, whatever the logs read so far showed
 */
export function nonceSpent(chain: BuyerChain, buyer: Address, nonce: Hex): Promise<boolean> {
  return chain.publicClient.readContract({
    address: chain.escrow,
    abi: escrowAbi,
    functionName: "nonceUsed",
    args: [buyer, nonce],
  });
}
