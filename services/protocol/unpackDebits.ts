import type { Address, Hex } from "viem";
import { getAddress, hexToBigInt, size, slice } from "viem";
import { BaseError } from "./errors.ts";

/** Bytes per debit in `BatchDebited.debits`: the buyer (20), the nonce (32), the amount (uint128, 16). */
export const DEBIT_ENTRY_SIZE = 68;

/** One debit packed in a `BatchDebited` log. */
export type PackedDebit = { buyer: Address; nonce: Hex; amount: bigint };

/** `BatchDebited.debits` whose length is not a whole number of entries: not data the escrow wrote. */
export class MalformedDebitsError extends BaseError {
  override name = "MalformedDebitsError";
  readonly length: number;

  constructor(length: number) {
    super(`BatchDebited.debits is ${length} bytes, not a multiple of ${DEBIT_ENTRY_SIZE}`);
    this.length = length;
  }
}

/**
 * The debits packed in a `BatchDebited` log's `debits` bytes, in order (IPaymentEscrow.sol lays them out).
 * @example unpackDebits(log.args.debits) // [{ buyer: "0xAb…", nonce: "0x…", amount: 1200n }]
 */
export function unpackDebits(debits: Hex): PackedDebit[] {
  const length = size(debits);
  if (length % DEBIT_ENTRY_SIZE !== 0) throw new MalformedDebitsError(length);
  const entries: PackedDebit[] = [];
  for (let at = 0; at < length; at += DEBIT_ENTRY_SIZE) {
    entries.push({
      buyer: getAddress(slice(debits, at, at + 20)),
      nonce: slice(debits, at + 20, at + 52),
      amount: hexToBigInt(slice(debits, at + 52, at + DEBIT_ENTRY_SIZE)),
    });
  }
  return entries;
}
