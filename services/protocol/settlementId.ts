import type { Address, Hex } from "viem";
import { encodeAbiParameters, hexToBytes } from "viem";
import { CHAIN_ID } from "./constants.ts";
import { keccak256Hex } from "./keccak.ts";

/**
 * The id of a committed settlement: `keccak256(abi.encode(chainId, escrow, buyer, nonce))`. It names the one debit
 * the escrow's nonce book allows for this buyer and nonce on this chain and escrow, so every facilitator instance
 * derives the same id, and anyone can check it on chain (`nonceUsed(buyer, nonce)`, the debit of that nonce in a `BatchDebited` log).
 * @example const id = settlementIdOf({ escrow, buyer, nonce })
 */
export function settlementIdOf(p: { escrow: Address; buyer: Address; nonce: Hex; chainId?: number }): Hex {
  return keccak256Hex(
    hexToBytes(
      encodeAbiParameters(
        [{ type: "uint256" }, { type: "address" }, { type: "address" }, { type: "bytes32" }],
        [BigInt(p.chainId ?? CHAIN_ID), p.escrow, p.buyer, p.nonce],
      ),
    ),
  );
}
