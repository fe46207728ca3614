import type { Hex, TransactionReceipt } from "viem";
import { getAddress, isAddressEqual } from "viem";
import { findDebits } from "../../../protocol/findDebits.ts";
import type { ParsedDebit } from "../../../protocol/parseDebits.ts";
import { parseDebits } from "../../../protocol/parseDebits.ts";
import type { Receipt } from "../../../protocol/schemas/receipt.ts";
import type { BuyerChain } from "./buyerChain.ts";
import { BuyerError } from "./buyerError.ts";
import { checkCommittedReceipt } from "./checkCommittedReceipt.ts";

export type VerifyDebitOptions = {
  /** How long to wait for a committed receipt's debit to be mined (ms); default 30 s. */
  waitMs?: number;
  /** How far back to look for a committed debit (blocks); default 1,000 (public RPCs cap `eth_getLogs` ranges). */
  lookbackBlocks?: bigint;
};

/**
 * Checks a receipt against the chain: the trusted escrow's debit (in its `BatchDebited` logs) of this resource, buyer
 * and idemKey,
 * with the receipt's amount and fee split. A confirmed receipt names its transaction, which must hold that event; a
 * committed one (answered before mining) names its settlementId, which must be this payment's, and the event is
 * awaited (up to `waitMs`). Returns the transaction and block the debit landed in. The strict check, for a caller that
 * wants the debit on chain; `acceptReceipt` takes a committed receipt as final without waiting for it.
 * @example const { transaction, blockNumber } = await verifyDebit(chain, receipt)
 */
export async function verifyDebit(
  chain: BuyerChain,
  receipt: Receipt,
  options: VerifyDebitOptions = {},
): Promise<{ transaction: Hex; blockNumber: bigint }> {
  const found = receipt.transaction
    ? await debitInTransaction(chain, receipt, receipt.transaction as Hex)
    : await awaitCommittedDebit(chain, receipt, options);
  const debit = found.debits.find((d) => isThisPayment(d, receipt));
  if (!debit) throw new BuyerError("bad_receipt", `transaction ${found.transaction} holds no debit of this payment`);
  if (debit.amount !== BigInt(receipt.amount) || debit.treasuryAmount !== BigInt(receipt.treasuryAmount))
    throw new BuyerError(
      "bad_receipt",
      `the chain debited ${debit.amount} (fee ${debit.treasuryAmount}), the receipt says ${receipt.amount} (fee ${receipt.treasuryAmount})`,
    );
  return { transaction: found.transaction, blockNumber: found.blockNumber };
}

type Found = { transaction: Hex; blockNumber: bigint; debits: ParsedDebit[] };

/** Whether `debit` is the receipt's payment: its nonce, buyer and resource. */
function isThisPayment(debit: ParsedDebit, receipt: Receipt): boolean {
  return (
    debit.nonce.toLowerCase() === receipt.idemKey.toLowerCase() &&
    isAddressEqual(debit.buyer, getAddress(receipt.payer)) &&
    debit.resourceId.toLowerCase() === receipt.payTo.toLowerCase()
  );
}

async function debitInTransaction(chain: BuyerChain, receipt: Receipt, hash: Hex): Promise<Found> {
  const tx: TransactionReceipt = await chain.publicClient.getTransactionReceipt({ hash }).catch((error: Error) => {
    if (error.name === "TransactionReceiptNotFoundError")
      throw new BuyerError("bad_receipt", `the receipt's transaction ${receipt.transaction} is not on chain`);
    throw error;
  });
  if (tx.status !== "success") throw new BuyerError("bad_receipt", `transaction ${hash} reverted`);
  return { transaction: hash, blockNumber: tx.blockNumber, debits: parseDebits(tx.logs, chain.escrow) };
}

/** Polls the escrow's `BatchDebited` logs of this resource for this buyer and nonce until the committed debit is mined, or `waitMs` ends. */
async function awaitCommittedDebit(chain: BuyerChain, receipt: Receipt, options: VerifyDebitOptions): Promise<Found> {
  await checkCommittedReceipt(chain, receipt);
  const lookback = options.lookbackBlocks ?? 1_000n;
  const start = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
  const fromBlock = start > lookback ? start - lookback : 0n;
  const deadline = Date.now() + (options.waitMs ?? 30_000);
  for (let delay = 50; ; delay = Math.min(delay * 2, 1_000)) {
    const toBlock = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
    const debits = (
      await findDebits(chain.publicClient, {
        escrow: chain.escrow,
        resourceId: receipt.payTo as Hex,
        fromBlock,
        toBlock,
      })
    ).filter((d) => isThisPayment(d, receipt));
    const debit = debits[0];
    if (debit?.transactionHash && debit.blockNumber !== null)
      return { transaction: debit.transactionHash, blockNumber: debit.blockNumber, debits };
    if (Date.now() >= deadline)
      throw new BuyerError(
        "not_confirmed",
        `the committed debit ${receipt.settlementId} is not on chain yet; verify again later (GET /results/${receipt.idemKey} names its transaction once mined)`,
      );
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
