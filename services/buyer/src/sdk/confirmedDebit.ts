import type { Hex } from "viem";
import type { Receipt } from "../../../protocol/schemas/receipt.ts";
import type { BuyerChain } from "./buyerChain.ts";
import { BuyerError } from "./buyerError.ts";
import { verifyDebit } from "./verifyDebit.ts";

/** A debit the chain shows in the transaction a confirmed receipt names. */
export type ConfirmedDebit = { amount: string; transaction: Hex; at: number };

/**
 * The debit a confirmed receipt names, when its transaction on chain holds this payment's debit with the receipt's
 * amount and split (verifyDebit); undefined for a committed receipt or one that does not check out. For a payment
 * the spend ledger still shows pending: mined after the ledger's scan, or past a provider whose logs lag the head.
 * @example const mined = await confirmedDebit(chain, stored.receipt) // { amount, transaction, at } | undefined
 */
export async function confirmedDebit(chain: BuyerChain, receipt: Receipt): Promise<ConfirmedDebit | undefined> {
  // A committed receipt names no transaction yet (receiptSchema).
  if (!receipt.transaction) return undefined;
  const onChain = await verifyDebit(chain, receipt).catch((error: unknown) => {
    if (error instanceof BuyerError) return undefined;
    throw error;
  });
  if (!onChain) return undefined;
  const block = await chain.publicClient.getBlock({ blockNumber: onChain.blockNumber });
  return { amount: receipt.amount, transaction: onChain.transaction, at: Number(block.timestamp) * 1000 };
}
