import { randomBytes, randomUUID } from "node:crypto";
import { ctr } from "@noble/ciphers/aes.js";
import { scrypt } from "@noble/hashes/scrypt.js";
import type { Hex } from "viem";
import { keccak256 } from "viem";
import { privateKeyToAddress } from "viem/accounts";

/** geth's standard scrypt cost (`geth account new`): a few seconds to open on a slow core. */
export const STANDARD_SCRYPT_N = 2 ** 18;

/** A Web3 Secret Storage v3 keystore as geth writes it (scrypt, AES-128-CTR, keccak-256 MAC). */
export type Keystore = {
  address: string;
  crypto: {
    cipher: "aes-128-ctr";
    cipherparams: { iv: string };
    ciphertext: string;
    kdf: "scrypt";
    kdfparams: { dklen: 32; n: number; r: 8; p: 1; salt: string };
    mac: string;
  };
  id: string;
  version: 3;
};

/**
 * Encrypts a private key into a Web3 Secret Storage v3 keystore, as `geth account new` does (scrypt r 8, p 1, a
 * random salt and IV); `n` lowers the scrypt cost for tests only.
 * @example writeFileSync("relayer.json", JSON.stringify(encryptKeystore(key, password)), { mode: 0o600 })
 */
export function encryptKeystore(privateKey: Hex, password: string, options: { n?: number } = {}): Keystore {
  const n = options.n ?? STANDARD_SCRYPT_N;
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const derived = scrypt(Buffer.from(password, "utf8"), salt, { N: n, r: 8, p: 1, dkLen: 32 });
  const ciphertext = ctr(derived.subarray(0, 16), iv).encrypt(Buffer.from(privateKey.slice(2), "hex"));
  return {
    address: privateKeyToAddress(privateKey).slice(2).toLowerCase(),
    crypto: {
      cipher: "aes-128-ctr",
      cipherparams: { iv: iv.toString("hex") },
      ciphertext: Buffer.from(ciphertext).toString("hex"),
      kdf: "scrypt",
      kdfparams: { dklen: 32, n, r: 8, p: 1, salt: salt.toString("hex") },
      mac: keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext])).slice(2),
    },
    id: randomUUID(),
    version: 3,
  };
}
