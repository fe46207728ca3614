import { BPS } from "../../protocol/constants.ts";
import { expectedDebitGas } from "../../protocol/expectedDebitGas.ts";
import { gasCostInTokenUnits } from "../../protocol/gasCostInTokenUnits.ts";
import { splitAmount } from "../../protocol/price.ts";
import { itemGas } from "./batchGas.ts";
import { compactDebit } from "./compactDebit.ts";
import type { DebitItem } from "./debitItem.ts";

/**
 * Gas a batch transaction is expected to use beyond its items: one debit alone used 66,799 at the 20 gwei floor, of which about
 * SETTLEMENT_GAS_PER_DEBIT is the item's. An estimate for deciding when to send, not a budget (batchGas.ts budgets).
 */
export const EXPECTED_BATCH_BASE_GAS = 51_000n;

/** Most time between two looks at held debits (ms): the fee is read again and the deadlines checked. */
export const HOLD_RECHECK_MS = 1_000;

/**
 * When committed debits are held: until the treasury share of the batch covers its expected gas at the current fee
 * times (1 + `marginBps`), at most `longestHoldSeconds` after a debit was queued and never past its authorization's
 * `validBefore` less `deadlineMarginSeconds` (time left to mine it, replacements included).
 */
export type HoldSettings = { marginBps: number; longestHoldSeconds: number; deadlineMarginSeconds: number };

/** What sending the queued debits now would earn and cost: the fee read last, in the token's base units. */
export type FeeSnapshot = { gasPriceWei: bigint; feeBps: number };

/** Why a batch goes out: it pays (or nothing was held), or a held debit could wait no longer. */
export type SendReason = "pays" | "urgent" | ForcedReason;

/** A send forced while the batch does not pay for itself: a debit's deadline, the longest hold, or a stop. */
export type ForcedReason = "deadline" | "longest_hold";

/** A debit the queue holds: its item, whether it may wait (a committed debit nobody awaits), and since when (s). */
export type HoldCandidate = { item: DebitItem; mayHold: boolean; queuedAt: number };

/** What a batch would earn and cost now: the treasury's share and the gas at the current fee, in base units. */
export type BatchEconomics = { treasuryUnits: bigint; costUnits: bigint; marginUnits: bigint };

/**
 * The gas a batch of `items` is expected to use: EXPECTED_BATCH_BASE_GAS plus, per item, what the price floor expects
 * of a debit of its nonce (expectedDebitGas: a bitmap nonce's share of a word, any other nonce's slot of its own), or,
 * for an item a contract checks or that has no compact encoding, its budget.
 * @example expectedBatchGas([itemOfBitmapNonce]) // 67_000n
 */
export function expectedBatchGas(items: readonly DebitItem[]): bigint {
  let gas = EXPECTED_BATCH_BASE_GAS;
  for (const item of items) gas += expectedItemGas(item);
  return gas;
}

function expectedItemGas(item: DebitItem): bigint {
  if (item.signedByContract || compactDebit(item) === null) return itemGas(item);
  return BigInt(expectedDebitGas(item.authorization.nonce));
}

/**
 * What sending `items` in one batch now earns the treasury (each amount split at the escrow's fee) and costs in gas at
 * `fee.gasPriceWei`, and the difference.
 * @example batchEconomics(items, { gasPriceWei: 21_000_000_000n, feeBps: 500 }).marginUnits
 */
export function batchEconomics(items: readonly DebitItem[], fee: FeeSnapshot): BatchEconomics {
  let treasuryUnits = 0n;
  for (const item of items) treasuryUnits += splitAmount(item.amount, fee.feeBps).treasury;
  const costUnits = gasCostInTokenUnits(expectedBatchGas(items), fee.gasPriceWei);
  return { treasuryUnits, costUnits, marginUnits: treasuryUnits - costUnits };
}

/**
 * Whether a batch pays for itself with the operator's margin: treasury >= cost x (1 + marginBps / 10,000).
 * @example pays({ treasuryUnits: 1_300n, costUnits: 1_000n, marginUnits: 300n }, 2_000) // true
 */
export function pays(economics: BatchEconomics, marginBps: number): boolean {
  return economics.treasuryUnits * BigInt(BPS) >= economics.costUnits * BigInt(BPS + marginBps);
}

/** The queue's decision about its head batch: send it now (and why), or look again in `recheckMs`. */
export type HoldVerdict = { send: true; reason: SendReason } | { send: false; recheckMs: number };

/**
 * Whether to send `batch` (the head of the queue, as it would be cut) now, given everything `queued` and the fee read
 * last (`fee`; undefined before the first read, when nothing is sent but what cannot wait). A debit that may not wait
 * (someone awaits its mining, or it was in a batch that failed) sends at once; so does a batch that pays for itself. A
 * held debit is sent, forced, at its deadline (`validBefore` - deadlineMarginSeconds) or after the longest hold.
 * @example holdVerdict({ batch, queued, fee, settings, now: Date.now() / 1000 })
 */
export function holdVerdict(p: {
  batch: readonly HoldCandidate[];
  queued: readonly HoldCandidate[];
  fee: FeeSnapshot | undefined;
  settings: HoldSettings;
  now: number;
}): HoldVerdict {
  if (p.queued.some((q) => !q.mayHold)) return { send: true, reason: "urgent" };
  if (p.fee && pays(batchEconomics(batchItems(p.batch), p.fee), p.settings.marginBps))
    return { send: true, reason: "pays" };
  let next = Number.POSITIVE_INFINITY;
  for (const q of p.queued) {
    const deadline = Number(q.item.authorization.validBefore) - p.settings.deadlineMarginSeconds;
    if (deadline <= p.now) return { send: true, reason: "deadline" };
    const longest = q.queuedAt + p.settings.longestHoldSeconds;
    if (longest <= p.now) return { send: true, reason: "longest_hold" };
    next = Math.min(next, deadline, longest);
  }
  return { send: false, recheckMs: Math.max(1, Math.min(HOLD_RECHECK_MS, Math.ceil((next - p.now) * 1000))) };
}

const batchItems = (batch: readonly HoldCandidate[]) => batch.map((b) => b.item);
