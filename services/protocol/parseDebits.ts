import type { Address, Hex, Log } from "viem";
import { decodeEventLog, isAddressEqual, parseAbiItem, toEventSelector } from "viem";
import { unpackDebits } from "./unpackDebits.ts";

/** The escrow's packed debit log (IPaymentEscrow.sol): one per run of debits for one resource. */
export const batchDebitedEvent = parseAbiItem(
  "event BatchDebited(bytes32 indexed resourceId, uint16 feeBps, bytes debits)",
);

/** `BatchDebited`'s topic0. */
export const BATCH_DEBITED_TOPIC: Hex = toEventSelector(batchDebitedEvent);

/**
 * One debit as the escrow's `BatchDebited` log proves it. `treasuryAmount` is floor(amount * feeBps / 10000), what
 * the escrow credited the treasury; the creator's share is the rest. `index` is the debit's place in its log.
 */
export type ParsedDebit = {
  resourceId: Hex;
  buyer: Address;
  nonce: Hex;
  amount: bigint;
  treasuryAmount: bigint;
  feeBps: number;
  blockNumber: bigint | null;
  /** The block's time (unix seconds) when the RPC gives it with the log, else null. */
  blockTimestamp: bigint | null;
  transactionHash: Hex | null;
  logIndex: number | null;
  index: number;
};

/**
 * Every debit in the `BatchDebited` logs among `logs` that `escrow` emitted, in log order: the one decoder of the
 * packed log (the relayer's crash recovery, the indexer, the buyer SDK and the benches all read debits through it).
 * Logs of any other contract or event are ignored, so a receipt's logs or a `getLogs` answer may be passed whole.
 * @example parseDebits(receipt.logs, escrow).find((d) => d.nonce === nonce && isAddressEqual(d.buyer, buyer))
 */
export function parseDebits(logs: readonly Log[], escrow: Address): ParsedDebit[] {
  const debits: ParsedDebit[] = [];
  for (const log of logs) {
    if (log.topics[0] !== BATCH_DEBITED_TOPIC || !isAddressEqual(log.address, escrow)) continue;
    const { args } = decodeEventLog({ abi: [batchDebitedEvent], data: log.data, topics: log.topics, strict: true });
    for (const [index, entry] of unpackDebits(args.debits).entries()) {
      debits.push({
        resourceId: args.resourceId,
        ...entry,
        treasuryAmount: (entry.amount * BigInt(args.feeBps)) / 10_000n,
        feeBps: args.feeBps,
        blockNumber: log.blockNumber,
        blockTimestamp: toBigInt((log as { blockTimestamp?: bigint | string | null }).blockTimestamp),
        transactionHash: log.transactionHash,
        logIndex: log.logIndex,
        index,
      });
    }
  }
  return debits;
}

function toBigInt(value: bigint | string | null | undefined): bigint | null {
  return value === null || value === undefined ? null : BigInt(value);
}
