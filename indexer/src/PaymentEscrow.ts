import { ponder } from "ponder:registry";
import { buyerBalance, debit, policy, resource, revenue } from "ponder:schema";
import type { Hex } from "viem";
import { getAbiItem, toFunctionSelector } from "viem";
import { abiOf } from "../../services/protocol/artifacts.ts";
import { SCHEME_ESCROW, SCHEME_EXACT } from "../../services/protocol/constants.ts";
import { unpackDebits } from "../../services/protocol/unpackDebits.ts";

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
 * One log per run of debits for one resource: its `debits` packs (buyer, nonce, amount) per debit (unpackDebits, the
 * protocol's decoder). Each debit becomes a `debit` row (`<log id>-<its place in the log>`); the resource's revenue
 * and each buyer's balance change once per log.
 */
ponder.on("PaymentEscrow:BatchDebited", async ({ event, context }) => {
  const { resourceId, feeBps } = event.args;
  // The escrow credits the creator's share to the payout the registry names in that transaction; events are
  // indexed in chain order, so the resource row holds exactly that payout now.
  const target = await context.db.find(resource, { resourceId });
  if (!target) throw new Error(`BatchDebited for ${resourceId}, which no ResourceRegistered introduced`);
  const scheme = event.transaction.input.slice(0, 10).toLowerCase() === SETTLE_EXACT ? SCHEME_EXACT : SCHEME_ESCROW;
  const rows = unpackDebits(event.args.debits).map(({ buyer, nonce, amount }, index) => {
    const treasuryAmount = (amount * BigInt(feeBps)) / 10_000n;
    return {
      id: `${event.id}-${index}`,
      resourceId,
      buyer,
      nonce,
      scheme,
      amount,
      payout: target.payout,
      creatorAmount: amount - treasuryAmount,
      treasuryAmount,
      blockNumber: event.block.number,
      timestamp: event.block.timestamp,
      transactionHash: event.transaction.hash,
    };
  });
  if (rows.length === 0) return;
  await context.db.insert(debit).values(rows);
  const total = (pick: (row: (typeof rows)[number]) => bigint) => rows.reduce((sum, row) => sum + pick(row), 0n);
  const gross = total((row) => row.amount);
  const creator = total((row) => row.creatorAmount);
  const treasury = total((row) => row.treasuryAmount);
  await context.db
    .insert(revenue)
    .values({
      resourceId,
      calls: rows.length,
      gross,
      creator,
      treasury,
      lastSettledAt: event.block.timestamp,
      lastSettledBlock: event.block.number,
    })
    .onConflictDoUpdate((r) => ({
      calls: r.calls + rows.length,
      gross: r.gross + gross,
      creator: r.creator + creator,
      treasury: r.treasury + treasury,
      lastSettledAt: event.block.timestamp,
      lastSettledBlock: event.block.number,
    }));
  if (scheme !== SCHEME_ESCROW) return;
  const spent = new Map<string, bigint>();
  for (const row of rows) spent.set(row.buyer, (spent.get(row.buyer) ?? 0n) + row.amount);
  for (const [buyer, amount] of spent) {
    await context.db
      .insert(buyerBalance)
      .values({ buyer: buyer as Hex, ...emptyBuyer, updatedBlock: event.block.number })
      .onConflictDoUpdate((r) => ({ balance: r.balance - amount, updatedBlock: event.block.number }));
  }
});

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
