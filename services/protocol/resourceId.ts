import type { Hex } from "viem";
import { bytesToHex, encodeAbiParameters, getAddress, keccak256 } from "viem";

/**
 * The resource id of a creator's slug: `keccak256(abi.encode(address creator, string slug))`, lowercase hex.
 * @example resourceIdOf('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', 'weather')
 */
export function resourceIdOf(creator: string, slug: string): Hex {
  return keccak256(encodeAbiParameters([{ type: "address" }, { type: "string" }], [getAddress(creator), slug]));
}

/**
 * 32 random bytes as lowercase hex: a fresh payment nonce, which is also the idemKey.
 * @example randomNonce() // '0x3f…'
 */
export function randomNonce(): Hex {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(32)));
}
