import type { Hex, Log, TransactionReceipt } from "viem";
import { getAddress, parseEventLogs } from "viem";
import { abiOf } from "../../../protocol/artifacts.ts";
import type { Receipt } from "../../../protocol/schemas/receipt.ts";
import { settlementIdOf } from "../../../protocol/settlementId.ts";
import type { BuyerChain } from "./buyerChain.ts";
import { BuyerError } from "./buyerError.ts";

export type VerifyDebitOptions = {
  /** How long to wait for a committed receipt's debit to be mined (ms); default 30 s. */
  waitMs?: number;
  /** How far back to look for a committed debit (blocks); default 1,000 (public RPCs cap `eth_getLogs` ranges). */
  lookbackBlocks?: bigint;
};

const escrowAbi = abiOf("PaymentEscrow");

/**
 * Checks a receipt against the chain: the trusted escrow's `Debited` event for this resource, buyer and idemKey,
 * with the receipt's amount and fee split. A confirmed receipt names its transaction, which must hold that event; a
 * committed one (answered before mining) names its settlementId, which must be this payment's, and the event is
 * awaited (up to `waitMs`). Returns the transaction and block the debit landed in.
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
  const debit = found.logs.find(
    (log) =>
      getAddress(log.address) === chain.escrow &&
      log.args.nonce.toLowerCase() === receipt.idemKey.toLowerCase() &&
      getAddress(log.args.buyer) === getAddress(receipt.payer) &&
      log.args.resourceId.toLowerCase() === receipt.payTo.toLowerCase(),
  );
  if (!debit) throw new BuyerError("bad_receipt", `transaction ${found.transaction} holds no debit of this payment`);
  if (debit.args.amount !== BigInt(receipt.amount) || debit.args.treasuryAmount !== BigInt(receipt.treasuryAmount))
    throw new BuyerError(
      "bad_receipt",
      `the chain debited ${debit.args.amount} (fee ${debit.args.treasuryAmount}), the receipt says ${receipt.amount} (fee ${receipt.treasuryAmount})`,
    );
  return { transaction: found.transaction, blockNumber: found.blockNumber };
}

type Found = { transaction: Hex; blockNumber: bigint; logs: ReturnType<typeof debitedLogs> };

function debitedLogs(logs: Log[]) {
  return parseEventLogs({ abi: escrowAbi, eventName: "Debited", logs });
}

async function debitInTransaction(chain: BuyerChain, receipt: Receipt, hash: Hex): Promise<Found> {
  const tx: TransactionReceipt = await chain.publicClient.getTransactionReceipt({ hash }).catch((error: Error) => {
    if (error.name === "TransactionReceiptNotFoundError")
      throw new BuyerError("bad_receipt", `the receipt's transaction ${receipt.transaction} is not on chain`);
    throw error;
  });
  if (tx.status !== "success") throw new BuyerError("bad_receipt", `transaction ${hash} reverted`);
  return { transaction: hash, blockNumber: tx.blockNumber, logs: debitedLogs(tx.logs) };
}

/** Polls the escrow's `Debited` logs of this buyer and nonce until the committed debit is mined, or `waitMs` ends. */
async function awaitCommittedDebit(chain: BuyerChain, receipt: Receipt, options: VerifyDebitOptions): Promise<Found> {
  const expected = settlementIdOf({
    escrow: chain.escrow,
    buyer: getAddress(receipt.payer),
    nonce: receipt.idemKey as Hex,
  });
  if (receipt.settlementId?.toLowerCase() !== expected.toLowerCase())
    throw new BuyerError("bad_receipt", "the receipt's settlementId is not this payment's (escrow, buyer, nonce)");
  const lookback = options.lookbackBlocks ?? 1_000n;
  const start = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
  const fromBlock = start > lookback ? start - lookback : 0n;
  const deadline = Date.now() + (options.waitMs ?? 30_000);
  for (let delay = 50; ; delay = Math.min(delay * 2, 1_000)) {
    const logs = await chain.publicClient.getContractEvents({
      address: chain.escrow,
      abi: escrowAbi,
      eventName: "Debited",
      args: { buyer: getAddress(receipt.payer), nonce: receipt.idemKey as Hex },
      fromBlock,
      strict: true,
    });
    const log = logs[0];
    if (log) return { transaction: log.transactionHash, blockNumber: log.blockNumber, logs };
    if (Date.now() >= deadline)
      throw new BuyerError(
        "not_confirmed",
        `the committed debit ${receipt.settlementId} is not on chain yet; verify again later (GET /results/${receipt.idemKey} names its transaction once mined)`,
      );
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
