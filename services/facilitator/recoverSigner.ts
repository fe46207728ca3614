import type { Address, Hex } from "viem";
import { getAddress, hexToBytes, recoverAddress } from "viem";
import { keccak256Hex } from "../protocol/keccak.ts";
import { nativeSecp256k1 as native } from "./secp256k1.ts";

/** Which implementation recovers signers here: `native` (libsecp256k1) or `js` (viem / noble). */
export const recoveryBackend: "native" | "js" = native ? "native" : "js";

/**
 * Recovers the address that produced a 65-byte (r, s, v) signature over `digest`; null when it is not a valid
 * signature. Uses libsecp256k1 when available (the hot path of `POST /verify`), viem's pure-JS path otherwise.
 * Callers reject high-s signatures before calling (see checkSignature).
 * @example const signer = await recoverSigner(digest, signature)
 */
export async function recoverSigner(
  digest: Hex,
  signature: Hex,
  backend: "native" | "js" = recoveryBackend,
): Promise<Address | null> {
  if (signature.length !== 132) return null;
  try {
    if (backend === "native" && native) {
      const bytes = hexToBytes(signature);
      const v = bytes[64] ?? 0;
      if (v !== 27 && v !== 28) return null;
      const publicKey = native.ecdsaRecover(bytes.subarray(0, 64), v - 27, hexToBytes(digest), false);
      return getAddress(`0x${keccak256Hex(publicKey.subarray(1)).slice(26)}`);
    }
    return await recoverAddress({ hash: digest, signature });
  } catch {
    return null;
  }
}
