import type { Hex } from "viem";
import { bytesToHex, keccak256, toHex } from "viem";

/**
 * First four bytes of an `exact` nonce that is bound to a resource: `bytes4(keccak256("ServiceEscrow.exact.resource"))`.
 * The escrow's `EXACT_NONCE_TAG`; a random nonce (a stock x402 client's) carries it with probability 2^-32.
 */
export const EXACT_NONCE_TAG: Hex = keccak256(toHex("ServiceEscrow.exact.resource")).slice(0, 10) as Hex;

/**
 * A fresh EIP-3009 nonce bound to `resourceId`: the tag, the first 12 bytes of the resource id, 16 random bytes.
 * The escrow's `settleExact` refuses a tagged nonce for any other resource, so an intercepted `exact` payment
 * cannot be redeemed at another resource of the same price.
 * @example resourceBoundNonce("0x3f…") // '0x<tag><resourceId[0:12]><16 random bytes>'
 */
export function resourceBoundNonce(resourceId: Hex): Hex {
  const random = bytesToHex(crypto.getRandomValues(new Uint8Array(16))).slice(2);
  return `${EXACT_NONCE_TAG}${resourceId.slice(2, 26).toLowerCase()}${random}` as Hex;
}

/**
 * Whether an `exact` nonce may pay `resourceId`: an untagged (random) nonce may pay any resource; a tagged one
 * only the resource whose first 12 bytes it carries. The same rule as the escrow's `settleExact`.
 * @example exactNonceAllows(resourceBoundNonce(id), id) // true
 */
export function exactNonceAllows(nonce: Hex, resourceId: Hex): boolean {
  if (nonce.slice(0, 10).toLowerCase() !== EXACT_NONCE_TAG) return true;
  return nonce.slice(10, 34).toLowerCase() === resourceId.slice(2, 26).toLowerCase();
}
