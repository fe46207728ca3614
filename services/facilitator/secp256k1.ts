import { createRequire } from "node:module";

/** The calls of libsecp256k1's N-API binding (the `secp256k1` package's `bindings`) that the facilitator uses. */
export type NativeSecp256k1 = {
  ecdsaRecover(signature: Uint8Array, recid: number, message: Uint8Array, compressed: boolean): Uint8Array;
  /** RFC 6979 nonce, low-s: the same signature as viem's (noble's) for the same key and digest. */
  ecdsaSign(message: Uint8Array, secretKey: Uint8Array): { signature: Uint8Array; recid: number };
};

/**
 * libsecp256k1 through its prebuilt N-API binding, or null when the binding cannot load on this platform (callers
 * then take viem's pure-JS path, which gives the same answers more slowly).
 */
export const nativeSecp256k1: NativeSecp256k1 | null = (() => {
  try {
    return createRequire(import.meta.url)("secp256k1/bindings") as NativeSecp256k1;
  } catch {
    return null;
  }
})();
