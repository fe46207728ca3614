import type { Hex } from "viem";
import { getAddress, parseEventLogs } from "viem";
import { abiOf } from "../../../protocol/artifacts.ts";
import type { Receipt } from "../../../protocol/schemas/receipt.ts";
import { BuyerError } from "./buyerError.ts";
import type { BuyerChain } from "./pinPaymentTerms.ts";

/**
 * Checks a receipt against the chain: its transaction holds the trusted escrow's `Debited` event for this resource,
 * buyer and idemKey, with the receipt's amount and fee split. Returns the block the debit landed in.
 * @example const { blockNumber } = await verifyDebit(chain, receipt)
 */
export async function verifyDebit(chain: BuyerChain, receipt: Receipt): Promise<{ blockNumber: bigint }> {
  const tx = await chain.publicClient
    .getTransactionReceipt({ hash: receipt.transaction as Hex })
    .catch((error: Error) => {
      if (error.name === "TransactionReceiptNotFoundError")
        throw new BuyerError("bad_receipt", `the receipt's transaction ${receipt.transaction} is not on chain`);
      throw error;
    });
  const debits = parseEventLogs({ abi: abiOf("PaymentEscrow"), eventName: "Debited", logs: tx.logs }).filter(
    (log) =>
      getAddress(log.address) === chain.escrow &&
      log.args.nonce.toLowerCase() === receipt.idemKey.toLowerCase() &&
      getAddress(log.args.buyer) === getAddress(receipt.payer) &&
      log.args.resourceId.toLowerCase() === receipt.payTo.toLowerCase(),
  );
  const debit = debits[0];
  if (tx.status !== "success" || !debit)
    throw new BuyerError("bad_receipt", `transaction ${receipt.transaction} holds no debit of this payment`);
  if (debit.args.amount !== BigInt(receipt.amount) || debit.args.treasuryAmount !== BigInt(receipt.treasuryAmount))
    throw new BuyerError(
      "bad_receipt",
      `the chain debited ${debit.args.amount} (fee ${debit.args.treasuryAmount}), the receipt says ${receipt.amount}`,
    );
  return { blockNumber: tx.blockNumber };
}
