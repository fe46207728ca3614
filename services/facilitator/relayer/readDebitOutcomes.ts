import type { Address, TransactionReceipt } from "viem";
import { decodeEventLog } from "viem";
import { abiOf } from "../../protocol/artifacts.ts";
import type { DebitOutcome } from "./debitOutcome.ts";

const escrowAbi = abiOf("PaymentEscrow");

/**
 * What became of each debit of a mined transaction, from its `Debited` and `DebitSkipped` logs by `escrow`,
 * keyed by `outcomeKey(buyer, nonce)`. Logs of other contracts, and other events, are ignored.
 * @example const outcome = readDebitOutcomes(receipt, escrow).get(outcomeKey(buyer, nonce))
 */
export function readDebitOutcomes(receipt: TransactionReceipt, escrow: Address): Map<string, DebitOutcome> {
  const outcomes = new Map<string, DebitOutcome>();
  for (const log of receipt.logs) {
    if (log.address.toLowerCase() !== escrow.toLowerCase()) continue;
    try {
      const event = decodeEventLog({ abi: escrowAbi, data: log.data, topics: log.topics });
      if (event.eventName === "Debited") {
        const a = event.args;
        outcomes.set(outcomeKey(a.buyer, a.nonce), {
          kind: "debited",
          transaction: receipt.transactionHash,
          block: receipt.blockNumber,
          amount: a.amount,
          creatorAmount: a.amount - a.treasuryAmount,
          treasuryAmount: a.treasuryAmount,
          payer: a.buyer,
        });
      } else if (event.eventName === "DebitSkipped") {
        outcomes.set(outcomeKey(event.args.buyer, event.args.nonce), {
          kind: "skipped",
          transaction: receipt.transactionHash,
          reason: event.args.reason,
        });
      }
    } catch {}
  }
  return outcomes;
}

/**
 * The key of one debit in readDebitOutcomes' map: its buyer and nonce, case-insensitively.
 * @example outcomes.get(outcomeKey(item.authorization.buyer, item.authorization.nonce))
 */
export function outcomeKey(buyer: string, nonce: string): string {
  return `${buyer.toLowerCase()}:${nonce.toLowerCase()}`;
}
