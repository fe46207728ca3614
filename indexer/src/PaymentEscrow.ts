import { ponder } from "ponder:registry";
import { buyerBalance, debit, policy, resource, revenue } from "ponder:schema";
import { getAbiItem, toFunctionSelector } from "viem";
import { abiOf } from "../../services/protocol/artifacts.ts";
import { SCHEME_ESCROW, SCHEME_EXACT } from "../../services/protocol/constants.ts";

/**
 * `Debited` is emitted by escrow debits (which spend the buyer's escrow balance) and by `settleExact` (an EIP-3009
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

ponder.on("PaymentEscrow:Debited", async ({ event, context }) => {
  const a = event.args;
  const creatorAmount = a.amount - a.treasuryAmount;
  // The escrow credits the creator's share to the payout the registry names in that transaction; events are
  // indexed in chain order, so the resource row holds exactly that payout now.
  const target = await context.db.find(resource, { resourceId: a.resourceId });
  if (!target) throw new Error(`Debited for ${a.resourceId}, which no ResourceRegistered introduced`);
  const scheme = event.transaction.input.slice(0, 10).toLowerCase() === SETTLE_EXACT ? SCHEME_EXACT : SCHEME_ESCROW;
  await context.db.insert(debit).values({
    id: event.id,
    resourceId: a.resourceId,
    buyer: a.buyer,
    nonce: a.nonce,
    scheme,
    amount: a.amount,
    payout: target.payout,
    creatorAmount,
    treasuryAmount: a.treasuryAmount,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
  });
  await context.db
    .insert(revenue)
    .values({
      resourceId: a.resourceId,
      calls: 1,
      gross: a.amount,
      creator: creatorAmount,
      treasury: a.treasuryAmount,
      lastSettledAt: event.block.timestamp,
      lastSettledBlock: event.block.number,
    })
    .onConflictDoUpdate((r) => ({
      calls: r.calls + 1,
      gross: r.gross + a.amount,
      creator: r.creator + creatorAmount,
      treasury: r.treasury + a.treasuryAmount,
      lastSettledAt: event.block.timestamp,
      lastSettledBlock: event.block.number,
    }));
  if (scheme === SCHEME_ESCROW) {
    await context.db
      .insert(buyerBalance)
      .values({ buyer: a.buyer, ...emptyBuyer, updatedBlock: event.block.number })
      .onConflictDoUpdate((r) => ({ balance: r.balance - a.amount, updatedBlock: event.block.number }));
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
