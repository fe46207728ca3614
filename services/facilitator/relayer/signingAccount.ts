import type { Hex, LocalAccount, TransactionSerializable } from "viem";
import { bytesToHex, hexToBytes, serializeTransaction } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { keccak256Bytes } from "../../protocol/keccak.ts";
import { nativeSecp256k1 } from "../secp256k1.ts";

/**
 * The relayer's account for `key`: viem's private-key account, whose transactions are hashed with keccak in
 * WebAssembly and signed by libsecp256k1 when its binding loads. A batch's calldata is kilobytes, and viem hashes it
 * in pure JavaScript and signs with noble; the signature is the same (RFC 6979, low s), so the transaction is the
 * same bytes (docs/benchmarks.md, "Facilitator", has both costs). Without the binding it is viem's account as is.
 * @example const account = signingAccount(key); await account.signTransaction({ type: "eip1559", chainId, to, data, gas, nonce, maxFeePerGas, maxPriorityFeePerGas })
 */
export function signingAccount(key: Hex, native = nativeSecp256k1): LocalAccount {
  const account = privateKeyToAccount(key);
  if (!native) return account;
  const secret = hexToBytes(key);
  return {
    ...account,
    async signTransaction(transaction, options) {
      const serializer = options?.serializer ?? serializeTransaction;
      const unsigned = transaction as TransactionSerializable;
      const digest = keccak256Bytes(Buffer.from((await serializer(unsigned)).slice(2), "hex"));
      const { signature, recid } = native.ecdsaSign(digest, secret);
      const r = bytesToHex(signature.subarray(0, 32));
      const s = bytesToHex(signature.subarray(32, 64));
      return (await serializer(unsigned, { r, s, yParity: recid })) as never;
    },
  };
}
