import type { Hex } from "viem";
import { splitAmount } from "./price.ts";
import { DEBIT_ENTRY_SIZE, MalformedDebitsError } from "./unpackDebits.ts";

/** The totals of one `BatchDebited` log's packed debits. */
export type DebitSums = {
  /** Debits in the log. */
  calls: number;
  gross: bigint;
  /** The treasury's shares summed, each floored as the escrow credited it (splitAmount). */
  treasury: bigint;
  /** What each buyer (lowercase address) was debited in the log. */
  spentBy: Map<Hex, bigint>;
};

/** Hex digits per packed debit, and where its amount starts (after the buyer's 20 bytes and the nonce's 32). */
const ENTRY_DIGITS = DEBIT_ENTRY_SIZE * 2;
const AMOUNT_AT = 52 * 2;

/**
 * The totals of a `BatchDebited` log's `debits` bytes at `feeBps`, read straight from the hex: what the indexer needs
 * per log, without building (and checksumming) an entry per debit as unpackDebits does.
 * @example sumDebits(log.args.debits, log.args.feeBps) // { calls: 96, gross: 115_680n, treasury: 5_736n, spentBy }
 */
export function sumDebits(debits: Hex, feeBps: number): DebitSums {
  const digits = debits.length - 2;
  if (digits % ENTRY_DIGITS !== 0) throw new MalformedDebitsError(digits / 2);
  const sums: DebitSums = { calls: 0, gross: 0n, treasury: 0n, spentBy: new Map() };
  for (let at = 2; at < debits.length; at += ENTRY_DIGITS) {
    const buyer = `0x${debits.slice(at, at + 40).toLowerCase()}` as Hex;
    const amount = BigInt(`0x${debits.slice(at + AMOUNT_AT, at + ENTRY_DIGITS)}`);
    sums.calls++;
    sums.gross += amount;
    sums.treasury += splitAmount(amount, feeBps).treasury;
    sums.spentBy.set(buyer, (sums.spentBy.get(buyer) ?? 0n) + amount);
  }
  return sums;
}
