import type { Hex } from "viem";
import { encodeFunctionData } from "viem";
import { abiOf } from "../../protocol/artifacts.ts";
import { compactDebit } from "./compactDebit.ts";
import type { DebitItem } from "./debitItem.ts";

const escrowAbi = abiOf("PaymentEscrow");

/**
 * The calldata of one batch: `debitBatchCompact` when every item has a compact encoding (see compactDebit), else
 * `debitBatch` in full (a contract wallet's own signature format has none).
 * @example const data = encodeDebitBatch(batch.map((b) => b.item))
 */
export function encodeDebitBatch(items: DebitItem[]): Hex {
  const compact = items.map(compactDebit);
  if (compact.every((c) => c !== null))
    return encodeFunctionData({ abi: escrowAbi, functionName: "debitBatchCompact", args: [compact] });
  return encodeFunctionData({ abi: escrowAbi, functionName: "debitBatch", args: [items] });
}
