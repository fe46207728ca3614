import type { Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";

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

/** Private key of development account `index` (local chain only). */
export function devKey(index: number): Hex {
  const key = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index }).getHdKey().privateKey;
  if (!key) throw new Error(`development account ${index} has no private key`);
  return `0x${Buffer.from(key).toString("hex")}`;
}

/** Whether `key` is one of the first 20 development keys (never acceptable outside the local chain). */
export function isDevKey(key: string): boolean {
  const lower = key.toLowerCase();
  return Array.from({ length: 20 }, (_, i) => devKey(i)).some((k) => k === lower);
}
