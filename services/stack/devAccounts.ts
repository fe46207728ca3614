import { pbkdf2Sync } from "node:crypto";
import type { Hex } from "viem";
import { HDKey } from "viem/accounts";

/**
 * The well-known development mnemonic of Hardhat's local chain. Its keys are public: they are used on the
 * embedded local chain only, and the stack refuses them on any other chain.
 */
export const DEV_MNEMONIC = "test test test test test test test test test test test junk";

/** Which development account plays which part on the local stack. */
export const DEV_ROLE = {
  admin: 0,
  relayer: 1,
  facilitator: 2,
  treasury: 3,
  publisher: 4,
  creator: 5,
  buyer: 10,
} as const;

/** How many development keys `isDevKey` knows (the embedded chain funds as many). */
const KNOWN_DEV_KEYS = 20;

/** `m/44'/60'/0'/0`, the parent of every development account's key. */
let accounts: HDKey | undefined;
const keys = new Map<number, Hex>();

/**
 * Private key of development account `index` (local chain only): BIP-44 `m/44'/60'/0'/0/index` of the mnemonic's
 * BIP-39 seed. The seed (2,048 rounds of HMAC-SHA512) and the path to the accounts' parent are computed once per
 * process, with the native PBKDF2, and each key once: tests and the stack ask for these keys hundreds of times.
 */
export function devKey(index: number): Hex {
  const known = keys.get(index);
  if (known) return known;
  accounts ??= HDKey.fromMasterSeed(
    pbkdf2Sync(DEV_MNEMONIC.normalize("NFKD"), "mnemonic", 2_048, 64, "sha512") as Uint8Array,
  ).derive("m/44'/60'/0'/0");
  const privateKey = accounts.deriveChild(index).privateKey;
  if (!privateKey) throw new Error(`development account ${index} has no private key`);
  const key: Hex = `0x${Buffer.from(privateKey).toString("hex")}`;
  keys.set(index, key);
  return key;
}

/** Whether `key` is one of the first 20 development keys (never acceptable outside the local chain). */
export function isDevKey(key: string): boolean {
  const lower = key.toLowerCase();
  return Array.from({ length: KNOWN_DEV_KEYS }, (_, i) => devKey(i)).some((k) => k === lower);
}
