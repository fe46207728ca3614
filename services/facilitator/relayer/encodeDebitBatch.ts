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
  const items = [...unordered].sort((x, y) => byDebitRun(x.authorization, y.authorization));
  const compact = items.map(compactDebit);
  if (compact.every((c) => c !== null))
    return encodeFunctionData({ abi: escrowAbi, functionName: "debitBatchCompact", args: [compact] });
  return encodeFunctionData({ abi: escrowAbi, functionName: "debitBatch", args: [items] });
}

/**
 * The order of debits in a batch: by resource, then buyer, then nonce (lowercase hex of fixed widths, so they compare
 * as text), so that each resource's debits form one run and one `BatchDebited` log.
 * @example items.sort((x, y) => byDebitRun(x.authorization, y.authorization))
 */
export function byDebitRun(
  x: { resourceId: Hex; buyer: Hex; nonce: Hex },
  y: { resourceId: Hex; buyer: Hex; nonce: Hex },
): number {
  const a = `${x.resourceId}${x.buyer}${x.nonce}`.toLowerCase();
  const b = `${y.resourceId}${y.buyer}${y.nonce}`.toLowerCase();
  return a < b ? -1 : a > b ? 1 : 0;
}
