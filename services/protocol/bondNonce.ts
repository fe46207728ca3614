import type { Hex } from "viem";
import { bytesToHex } from "viem";

/**
 * A fresh EIP-3009 nonce for a bond of `resourceId`: the first 16 bytes of the resource id, then 16 random bytes. The
 * registry's `registerFor` and `postBondWithAuthorization` credit a bond authorization only to the resource whose first
 * 16 bytes its nonce carries, so a creator's authorization seen in the mempool cannot be redirected to another of the
 * creator's resources.
 * @example bondNonce(resourceIdOf(creator, "weather")) // '0x<resourceId[0:16]><16 random bytes>'
 */
export function bondNonce(resourceId: Hex): Hex {
  const random = bytesToHex(crypto.getRandomValues(new Uint8Array(16))).slice(2);
  return `0x${resourceId.slice(2, 34).toLowerCase()}${random}` as Hex;
}

/**
 * Whether a bond authorization's nonce may bond `resourceId`: its first 16 bytes are the resource id's. The rule of the
 * registry's `BondNonceBoundToOtherResource`.
 * @example bondNonceAllows(bondNonce(id), id) // true
 */
export function bondNonceAllows(nonce: Hex, resourceId: Hex): boolean {
  return nonce.length === 66 && nonce.slice(2, 34).toLowerCase() === resourceId.slice(2, 34).toLowerCase();
}
