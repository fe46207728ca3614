import type { Hex } from "viem";
import { encodeFunctionData } from "viem";
import { abiOf } from "../../protocol/artifacts.ts";
import { compactDebit } from "./compactDebit.ts";
import type { DebitItem } from "./debitItem.ts";

const escrowAbi = abiOf("PaymentEscrow");

/**
 * The calldata of one batch: `debitBatchCompact` when every item has a compact encoding (see compactDebit), else
 * `debitBatch` in full (a contract wallet's own signature format has none). The items go in runs: by resource, then
 * buyer, then nonce, since the escrow credits earnings and logs once per run of one resource and reads and writes a
 * buyer's account once per run of that buyer (and a buyer's bitmap nonces in ascending order stay in its current
 * word). Outcomes are read back by buyer and nonce, so the order is the relayer's own.
 * @example const data = encodeDebitBatch(batch.map((b) => b.item))
 */
export function encodeDebitBatch(unordered: DebitItem[]): Hex {
  const items = [...unordered].sort((x, y) => compareKeys(runKey(x), runKey(y)));
  const compact = items.map(compactDebit);
  if (compact.every((c) => c !== null))
    return encodeFunctionData({ abi: escrowAbi, functionName: "debitBatchCompact", args: [compact] });
  return encodeFunctionData({ abi: escrowAbi, functionName: "debitBatch", args: [items] });
}

/** An item's place in a batch: resource, buyer, nonce (lowercase hex of fixed widths, so they compare as text). */
function runKey(item: DebitItem): string {
  const a = item.authorization;
  return `${a.resourceId}${a.buyer}${a.nonce}`.toLowerCase();
}

function compareKeys(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
