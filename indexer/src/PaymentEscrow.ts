import { ponder } from "ponder:registry";
import { buyerBalance, debitBatch, policy, resource, revenue } from "ponder:schema";
import type { Hex } from "viem";
import { getAbiItem, toFunctionSelector } from "viem";
import { abiOf } from "../../services/protocol/artifacts.ts";
import { SCHEME_ESCROW, SCHEME_EXACT } from "../../services/protocol/constants.ts";
import { sumDebits } from "../../services/protocol/sumDebits.ts";

/**
 * `BatchDebited` is emitted by escrow debits (which spend the buyer's escrow balance) and by `settleExact` (an EIP-3009
 * transfer that never touches it). The event does not say which; the relayer calls the escrow directly, so the
 * transaction's function selector does.
 */
const SETTLE_EXACT = toFunctionSelector(getAbiItem({ abi: abiOf("PaymentEscrow"), name: "settleExact" }));

const noPendingSpendLimit = { pendingSpendLimit: 0n, pendingSpendPeriod: 0n, pendingSpendLimitAt: 0n };
const emptyBuyer = {
  balance: 0n,
  pendingWithdrawal: 0n,
  withdrawalUnlocksAt: 0n,
  spendLimit: 0n,
  spendPeriod: 0n,
  ...noPendingSpendLimit,
};

/**
 * One log per run of debits for one resource: its `debits` packs (buyer, nonce, amount) per debit. The log becomes one
 * `debit_batch` row (the packed bytes and their totals, sumDebits) and one update of the resource's revenue; each
 * buyer's balance changes once per log, in one bulk upsert.
 */
ponder.on("PaymentEscrow:BatchDebited", async ({ event, context }) => {
  const { resourceId, feeBps, debits } = event.args;
  const sums = sumDebits(debits, feeBps);
  if (sums.calls === 0) return;
  // The escrow credits the creator's share to the payout the registry names in that transaction; events are
  // indexed in chain order, so the resource row holds exactly that payout now.
  const target = await context.db.find(resource, { resourceId });
  if (!target) throw new Error(`BatchDebited for ${resourceId}, which no ResourceRegistered introduced`);
  const scheme = event.transaction.input.slice(0, 10).toLowerCase() === SETTLE_EXACT ? SCHEME_EXACT : SCHEME_ESCROW;
  const { calls, gross, treasury } = sums;
  const creator = gross - treasury;
  const settled = { lastSettledAt: event.block.timestamp, lastSettledBlock: event.block.number };
  await context.db.insert(debitBatch).values({
    id: event.id,
    resourceId,
    scheme,
    feeBps,
    payout: target.payout,
    debits,
    calls,
    gross,
    creator,
    treasury,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
  await context.db
    .insert(revenue)
    .values({ resourceId, calls: BigInt(calls), gross, creator, treasury, ...settled })
    .onConflictDoUpdate((r) => ({
      calls: r.calls + BigInt(calls),
      gross: r.gross + gross,
      creator: r.creator + creator,
      treasury: r.treasury + treasury,
      ...settled,
    }));
  if (scheme !== SCHEME_ESCROW) return;
  const updatedBlock = event.block.number;
  await context.db
    .insert(buyerBalance)
    .values([...sums.spentBy.keys()].map((buyer) => ({ buyer, ...emptyBuyer, updatedBlock })))
    // A row inserted by this Ponder holds the buyer as its event gave it (checksummed); spentBy's are lowercase.
    .onConflictDoUpdate((r) => ({ balance: r.balance - (sums.spentBy.get(lower(r.buyer)) ?? 0n), updatedBlock }));
});

const lower = (address: Hex) => address.toLowerCase() as Hex;

ponder.on("PaymentEscrow:Deposited", async ({ event, context }) => {
  const values = { balance: event.args.balance, updatedBlock: event.block.number };
  await context.db
    .insert(buyerBalance)
    .values({ buyer: event.args.buyer, ...emptyBuyer, ...values })
    .onConflictDoUpdate(values);
});

ponder.on("PaymentEscrow:WithdrawalRequested", async ({ event, context }) => {
  const values = {
    pendingWithdrawal: event.args.amount,
    withdrawalUnlocksAt: event.args.unlocksAt,
    updatedBlock: event.block.number,
  };
  await context.db
    .insert(buyerBalance)
    .values({ buyer: event.args.buyer, ...emptyBuyer, ...values })
    .onConflictDoUpdate(values);
});

ponder.on("PaymentEscrow:Withdrawn", async ({ event, context }) => {
  const values = {
    balance: event.args.balance,
    pendingWithdrawal: 0n,
    withdrawalUnlocksAt: 0n,
    updatedBlock: event.block.number,
  };
  await context.db
    .insert(buyerBalance)
    .values({ buyer: event.args.buyer, ...emptyBuyer, ...values })
    .onConflictDoUpdate(values);
});

/** A limit in force now; it clears any pending change (a loosening cancels it, `applySpendLimit` applies it). */
ponder.on("PaymentEscrow:SpendLimitSet", async ({ event, context }) => {
  const values = {
    spendLimit: event.args.limit,
    spendPeriod: event.args.period,
    ...noPendingSpendLimit,
    updatedBlock: event.block.number,
  };
  await context.db
    .insert(buyerBalance)
    .values({ buyer: event.args.buyer, ...emptyBuyer, ...values })
    .onConflictDoUpdate(values);
});

/** A tightening that waits a day; the limit in force stays until it is applied. */
ponder.on("PaymentEscrow:SpendLimitChangeRequested", async ({ event, context }) => {
  const values = {
    pendingSpendLimit: event.args.limit,
    pendingSpendPeriod: event.args.period,
    pendingSpendLimitAt: event.args.effectiveAt,
    updatedBlock: event.block.number,
  };
  await context.db
    .insert(buyerBalance)
    .values({ buyer: event.args.buyer, ...emptyBuyer, ...values })
    .onConflictDoUpdate(values);
});

ponder.on("PaymentEscrow:FeeChanged", async ({ event, context }) => {
  const values = { feeBps: event.args.newFeeBps, updatedBlock: event.block.number };
  await context.db
    .insert(policy)
    .values({ contract: "escrow", ...values })
    .onConflictDoUpdate(values);
});

ponder.on("PaymentEscrow:TreasuryChanged", async ({ event, context }) => {
  const values = { treasury: event.args.treasury, updatedBlock: event.block.number };
  await context.db
    .insert(policy)
    .values({ contract: "escrow", ...values })
    .onConflictDoUpdate(values);
});
