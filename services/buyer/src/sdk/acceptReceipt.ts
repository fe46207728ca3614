import type { Hex } from "viem";
import type { Receipt } from "../../../protocol/schemas/receipt.ts";
import type { BuyerChain } from "./buyerChain.ts";
import { checkCommittedReceipt } from "./checkCommittedReceipt.ts";
import { verifyDebit } from "./verifyDebit.ts";

/** Where an accepted payment stands: mined (with its transaction), or committed (final, mined by `validBefore`). */
export type AcceptReceiptReturnType =
  | { settlement: "confirmed"; transaction: Hex; blockNumber: bigint }
  | { settlement: "committed"; settlementId: Hex };

/**
 * Takes a paid call's receipt as final: a confirmed one once its transaction holds this payment's debit with the
 * receipt's split (`verifyDebit`); a committed one at once, without waiting for the mining, when it is this payment's
 * committed debit (`checkCommittedReceipt`: its settlementId, a split the escrow can make). Nothing but the
 * facilitator's relayer can stop a committed debit, and it may hold it until its batch pays for its gas, up to the
 * signed `validBefore`: the buyer's budgets keep counting the cap until the chain shows the debit. A caller that
 * wants the debit on chain calls `verifyDebit` instead.
 * @throws {BuyerError} `bad_receipt` when the receipt is not this payment's.
 * @example const accepted = await acceptReceipt(chain, paid.receipt)
 */
export async function acceptReceipt(chain: BuyerChain, receipt: Receipt): Promise<AcceptReceiptReturnType> {
  if (receipt.status === "committed")
    return { settlement: "committed", settlementId: await checkCommittedReceipt(chain, receipt, { checkSplit: true }) };
  const { transaction, blockNumber } = await verifyDebit(chain, receipt);
  return { settlement: "confirmed", transaction, blockNumber };
}
