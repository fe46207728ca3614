import { ERC1271_GAS_LIMIT } from "../chain.ts";
import { compactDebit } from "./compactDebit.ts";
import type { DebitItem } from "./debitItem.ts";

/** Gas budgeted for a batch transaction itself, before its items. */
export const BATCH_BASE_GAS = 150_000n;
/** Gas budgeted per batch item signed by a key (docs/gas.md measures 34–41k; the rest is headroom). */
const ITEM_GAS = 70_000n;
/**
 * Extra gas budgeted for an item whose signature a contract checks (ERC-1271): the escrow forwards at most
 * ERC1271_GAS_LIMIT (500k), which the call only gets while 64/63 of it is left, plus the call and its calldata copy.
 */
const ERC1271_ITEM_GAS = (ERC1271_GAS_LIMIT * 64n) / 63n + 30_000n;
/** Most gas one batch transaction is budgeted: well below a block's gas limit. */
export const MAX_BATCH_GAS = 12_000_000n;
/** Gas of a `settleExact` transaction: 130k measured (docs/gas.md), plus the token's ERC-1271 check of a contract payer. */
export const EXACT_GAS = 250_000n + ERC1271_ITEM_GAS;
/** Gas of a `recordStrike` transaction. */
export const STRIKE_GAS = 200_000n;

/**
 * The gas an item is budgeted in a batch: a key-signed item its measured cost with headroom, an item a contract
 * must check (or that has no compact encoding, such as a contract wallet's signature) also the most that check may
 * use on chain, so that no item can make its batch run out of gas.
 * @example const gas = items.reduce((sum, item) => sum + itemGas(item), BATCH_BASE_GAS)
 */
export function itemGas(item: DebitItem): bigint {
  return item.signedByContract || compactDebit(item) === null ? ITEM_GAS + ERC1271_ITEM_GAS : ITEM_GAS;
}

/**
 * The gas of a full batch of `maxItems` key-signed items, at most MAX_BATCH_GAS: what a signer must be able to pay
 * for up front (gas x maxFeePerGas) before new debits are committed to it.
 * @example const minimumBalance = fullBatchGas(128) * maxFeePerGas
 */
export function fullBatchGas(maxItems: number): bigint {
  const gas = BATCH_BASE_GAS + ITEM_GAS * BigInt(maxItems);
  return gas < MAX_BATCH_GAS ? gas : MAX_BATCH_GAS;
}
