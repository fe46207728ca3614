import { timingSafeEqual } from "node:crypto";
import { ctr } from "@noble/ciphers/aes.js";
import { pbkdf2 } from "@noble/hashes/pbkdf2.js";
import { scrypt } from "@noble/hashes/scrypt.js";
import { sha256 } from "@noble/hashes/sha2.js";
import type { Hex } from "viem";
import { bytesToHex, getAddress, keccak256 } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { KeystoreError, WrongPasswordError } from "./keystoreError.ts";

/** Largest scrypt cost accepted (2^20; geth's standard is 2^18, Foundry's 2^13): a file cannot make us spend minutes. */
const MAX_SCRYPT_N = 2 ** 20;
/** Largest PBKDF2 iteration count accepted (the spec's own vector uses 262,144). */
const MAX_PBKDF2_C = 10_000_000;

type KdfParams = { dklen?: unknown; salt?: unknown; n?: unknown; r?: unknown; p?: unknown; c?: unknown; prf?: unknown };
type KeystoreCrypto = {
  cipher?: unknown;
  cipherparams?: { iv?: unknown };
  ciphertext?: unknown;
  kdf?: unknown;
  kdfparams?: KdfParams;
  mac?: unknown;
};

function bytes(value: unknown, field: string, length?: number): Buffer {
  if (typeof value !== "string" || !/^(0x)?([0-9a-fA-F]{2})+$/.test(value))
    throw new KeystoreError(`not a Web3 Secret Storage v3 keystore: ${field} is not hex`);
  const out = Buffer.from(value.replace(/^0x/, ""), "hex");
  if (length !== undefined && out.length !== length)
    throw new KeystoreError(`not a Web3 Secret Storage v3 keystore: ${field} is not ${length} bytes`);
  return out;
}

function integer(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max)
    throw new KeystoreError(`unsupported keystore: ${field} must be an integer from ${min} to ${max}`);
  return value;
}

function deriveKey(password: Buffer, kdf: unknown, params: KdfParams): Uint8Array {
  const dklen = integer(params.dklen, "kdfparams.dklen", 32, 64);
  const salt = bytes(params.salt, "kdfparams.salt");
  if (kdf === "scrypt") {
    const N = integer(params.n, "kdfparams.n", 2, MAX_SCRYPT_N);
    if ((N & (N - 1)) !== 0) throw new KeystoreError("unsupported keystore: kdfparams.n must be a power of 2");
    const r = integer(params.r, "kdfparams.r", 1, 32);
    const p = integer(params.p, "kdfparams.p", 1, 16);
    // noble's scrypt, as viem's own keystore code (ox) uses: node:crypto refuses the spec's own vector (N 2^18 with
    // r 1 breaks RFC 7914's N < 2^(16 r), a bound geth and every wallet ignore).
    return scrypt(password, salt, { N, r, p, dkLen: dklen });
  }
  if (kdf === "pbkdf2") {
    if (params.prf !== "hmac-sha256") throw new KeystoreError("unsupported keystore: pbkdf2 needs prf hmac-sha256");
    return pbkdf2(sha256, password, salt, { c: integer(params.c, "kdfparams.c", 1, MAX_PBKDF2_C), dkLen: dklen });
  }
  throw new KeystoreError(`unsupported keystore: kdf ${JSON.stringify(kdf)} (scrypt or pbkdf2 expected)`);
}

/**
 * Opens a Web3 Secret Storage v3 keystore (what geth, Foundry's `cast wallet` and `npm run keystore` write): scrypt
 * or PBKDF2-HMAC-SHA256, then AES-128-CTR, checked by the keccak-256 MAC of the derived key's second half and the
 * ciphertext. Synchronous (@noble/hashes, @noble/ciphers): keys are read once, at start-up; geth's standard scrypt
 * cost takes a few seconds a key on a slow core.
 * @throws {WrongPasswordError} when the MAC does not match; {@link KeystoreError} for a file that is not a keystore.
 * @example const key = decryptKeystore(readFileSync("relayer.json", "utf8"), "s3cret")
 */
export function decryptKeystore(text: string, password: string): Hex {
  let json: { version?: unknown; crypto?: KeystoreCrypto; Crypto?: KeystoreCrypto; address?: unknown };
  try {
    json = JSON.parse(text);
  } catch {
    throw new KeystoreError("not a Web3 Secret Storage v3 keystore: not JSON");
  }
  if (typeof json !== "object" || json === null)
    throw new KeystoreError("not a Web3 Secret Storage v3 keystore: not a JSON object");
  if (json.version !== 3)
    throw new KeystoreError(`unsupported keystore: version ${JSON.stringify(json.version)} (3 expected)`);
  const crypto = json.crypto ?? json.Crypto;
  if (typeof crypto !== "object" || crypto === null)
    throw new KeystoreError("not a Web3 Secret Storage v3 keystore: no crypto section");
  if (crypto.cipher !== "aes-128-ctr")
    throw new KeystoreError(`unsupported keystore: cipher ${JSON.stringify(crypto.cipher)} (aes-128-ctr expected)`);
  const iv = bytes(crypto.cipherparams?.iv, "cipherparams.iv", 16);
  const ciphertext = bytes(crypto.ciphertext, "ciphertext", 32);
  const mac = bytes(crypto.mac, "mac", 32);
  const derived = deriveKey(Buffer.from(password, "utf8"), crypto.kdf, crypto.kdfparams ?? {});
  const expected = keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext]), "bytes");
  if (!timingSafeEqual(expected, mac))
    throw new WrongPasswordError("wrong password (the keystore's MAC does not match)");
  const key = bytesToHex(ctr(derived.subarray(0, 16), iv).decrypt(ciphertext));
  let address: string;
  try {
    address = privateKeyToAddress(key);
  } catch {
    throw new KeystoreError("the keystore opens but does not hold a valid secp256k1 private key");
  }
  if (typeof json.address === "string" && /^(0x)?[0-9a-fA-F]{40}$/.test(json.address)) {
    if (getAddress(json.address.replace(/^(0x)?/, "0x")) !== address)
      throw new KeystoreError(`the keystore names address ${json.address} but holds the key of ${address}`);
  }
  return key;
}
