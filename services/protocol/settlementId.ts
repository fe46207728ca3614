import type { Address, Hex } from "viem";
import { CHAIN_ID } from "./constants.ts";
import { keccak256Hex } from "./keccak.ts";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;

/** `value`'s 32-byte ABI word, as 64 hex digits (`value` 0x-prefixed hex that fits, or a uint below 2^256). */
function word(value: string | bigint): string {
  return (typeof value === "bigint" ? value.toString(16) : value.slice(2)).padStart(64, "0");
}

/**
 * The id of a committed settlement: `keccak256(abi.encode(chainId, escrow, buyer, nonce))`. It names the one debit
 * the escrow's nonce book allows for this buyer and nonce on this chain and escrow, so every facilitator instance
 * derives the same id, and anyone can check it on chain (`nonceUsed(buyer, nonce)`, the debit of that nonce in a `BatchDebited` log).
 * Encoded here word by word (four static words) rather than by viem's `encodeAbiParameters`, whose generic encoder
 * cost the facilitator more than the hash on every committed call; `settlementId.test.ts` checks both agree.
 * @example const id = settlementIdOf({ escrow, buyer, nonce })
 */
export function settlementIdOf(p: { escrow: Address; buyer: Address; nonce: Hex; chainId?: number }): Hex {
  const chainId = p.chainId ?? CHAIN_ID;
  if (!Number.isSafeInteger(chainId) || chainId < 0) throw new TypeError(`chain id ${chainId} is not a uint`);
  if (!ADDRESS.test(p.escrow)) throw new TypeError(`escrow ${p.escrow} is not an address`);
  if (!ADDRESS.test(p.buyer)) throw new TypeError(`buyer ${p.buyer} is not an address`);
  if (!BYTES32.test(p.nonce)) throw new TypeError(`nonce ${p.nonce} is not 32 bytes`);
  const encoded = `${word(BigInt(chainId))}${word(p.escrow)}${word(p.buyer)}${word(p.nonce)}`.toLowerCase();
  return keccak256Hex(Buffer.from(encoded, "hex"));
}
