import type { Hex } from "viem";
import { encodeAbiParameters, getAddress, keccak256 } from "viem";

/**
 * The key a failed call is struck under on the ResourceRegistry: `keccak256(abi.encode(address buyer, bytes32 nonce))`,
 * the registry's `strikeKeyOf`. A payment nonce (the idemKey) is unique only per buyer, so a strike names the buyer
 * too: the registry records each key once, and the facilitator queues one strike per (buyer, nonce).
 * @example strikeKeyOf({ buyer: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", nonce: bitmapNonce(0) })
 */
export function strikeKeyOf(p: { buyer: string; nonce: Hex }): Hex {
  return keccak256(encodeAbiParameters([{ type: "address" }, { type: "bytes32" }], [getAddress(p.buyer), p.nonce]));
}
