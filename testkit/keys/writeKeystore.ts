import { writeFileSync } from "node:fs";
import type { Hex } from "viem";
import { encryptKeystore } from "../../services/keys/encryptKeystore.ts";

/** scrypt cost of test keystores: 2^10 opens in milliseconds (geth's standard 2^18 takes seconds). */
export const TEST_SCRYPT_N = 2 ** 10;

/**
 * Writes `key` to `path` as a Web3 Secret Storage v3 keystore, at a scrypt cost tests can afford; returns `path`.
 * @example const file = writeKeystore(join(dir, "relayer.json"), devKey(1), "correct horse")
 */
export function writeKeystore(path: string, key: Hex, password: string): string {
  writeFileSync(path, JSON.stringify(encryptKeystore(key, password, { n: TEST_SCRYPT_N })), { mode: 0o600 });
  return path;
}

/**
 * Writes a password file as an operator would (`echo "$PASSWORD" > file`: a final line break); returns `path`.
 * @example const passwordFile = writePasswordFile(join(dir, "password"), "correct horse")
 */
export function writePasswordFile(path: string, password: string): string {
  writeFileSync(path, `${password}\n`, { mode: 0o600 });
  return path;
}
