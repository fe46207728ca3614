import { ponder } from "ponder:registry";
import { bond, policy, resource, strike } from "ponder:schema";

ponder.on("ResourceRegistry:ResourceRegistered", async ({ event, context }) => {
  const a = event.args;
  await context.db.insert(resource).values({
    resourceId: a.resourceId,
    creator: a.creator,
    agentId: a.agentId,
    slug: a.slug,
    payout: a.payout,
    category: a.category,
    base: a.pricing.base,
    perKB: a.pricing.perKB,
    max: a.pricing.max,
    cardUri: a.cardURI,
    cardHash: a.cardHash,
    active: true,
    bond: 0n,
    strikes: 0,
    strikesTotal: 0,
    deactivatedAt: 0n,
    registeredBlock: event.block.number,
    registeredAt: event.block.timestamp,
    registeredTx: event.transaction.hash,
    updatedBlock: event.block.number,
  });
});

ponder.on("ResourceRegistry:PricingUpdated", async ({ event, context }) => {
  const { base, perKB, max } = event.args.pricing;
  await context.db
    .update(resource, { resourceId: event.args.resourceId })
    .set({ base, perKB, max, updatedBlock: event.block.number });
});

ponder.on("ResourceRegistry:CardUpdated", async ({ event, context }) => {
  await context.db
    .update(resource, { resourceId: event.args.resourceId })
    .set({ cardUri: event.args.cardURI, cardHash: event.args.cardHash, updatedBlock: event.block.number });
});

ponder.on("ResourceRegistry:PayoutUpdated", async ({ event, context }) => {
  await context.db
    .update(resource, { resourceId: event.args.resourceId })
    .set({ payout: event.args.payout, updatedBlock: event.block.number });
});

ponder.on("ResourceRegistry:ResourceDeactivated", async ({ event, context }) => {
  await context.db
    .update(resource, { resourceId: event.args.resourceId })
    .set({ active: false, deactivatedAt: event.block.timestamp, updatedBlock: event.block.number });
});

ponder.on("ResourceRegistry:ResourceReactivated", async ({ event, context }) => {
  await context.db
    .update(resource, { resourceId: event.args.resourceId })
    .set({ active: true, deactivatedAt: 0n, updatedBlock: event.block.number });
});

ponder.on("ResourceRegistry:BondPosted", async ({ event, context }) => {
  const a = event.args;
  await context.db
    .update(resource, { resourceId: a.resourceId })
    .set({ bond: a.bond, updatedBlock: event.block.number });
  await context.db.insert(bond).values({
    id: event.id,
    resourceId: a.resourceId,
    kind: "posted",
    account: a.from,
    amount: a.amount,
    bondAfter: a.bond,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
  });
});

ponder.on("ResourceRegistry:BondWithdrawn", async ({ event, context }) => {
  const a = event.args;
  const row = await context.db
    .update(resource, { resourceId: a.resourceId })
    .set((r) => ({ bond: r.bond - a.amount, updatedBlock: event.block.number }));
  await context.db.insert(bond).values({
    id: event.id,
    resourceId: a.resourceId,
    kind: "withdrawn",
    account: a.to,
    amount: a.amount,
    bondAfter: row.bond,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
  });
});

ponder.on("ResourceRegistry:BondSlashed", async ({ event, context }) => {
  const a = event.args;
  await context.db
    .update(resource, { resourceId: a.resourceId })
    .set({ bond: a.bond, strikes: 0, updatedBlock: event.block.number });
  await context.db.insert(bond).values({
    id: event.id,
    resourceId: a.resourceId,
    kind: "slashed",
    account: null,
    amount: a.amount,
    bondAfter: a.bond,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
  });
});

ponder.on("ResourceRegistry:StrikeRecorded", async ({ event, context }) => {
  const a = event.args;
  await context.db
    .update(resource, { resourceId: a.resourceId })
    .set((r) => ({ strikes: a.strikes, strikesTotal: r.strikesTotal + 1, updatedBlock: event.block.number }));
  await context.db.insert(strike).values({
    id: event.id,
    resourceId: a.resourceId,
    strikeKey: a.strikeKey,
    buyer: a.buyer,
    idemKey: a.nonce,
    strikes: a.strikes,
    reason: a.reason,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
  });
});

ponder.on("ResourceRegistry:StrikePolicyChanged", async ({ event, context }) => {
  const values = {
    strikeThreshold: event.args.strikeThreshold,
    slashBps: event.args.slashBps,
    minBond: event.args.minBond,
    updatedBlock: event.block.number,
  };
  await context.db
    .insert(policy)
    .values({ contract: "registry", ...values })
    .onConflictDoUpdate(values);
});

ponder.on("ResourceRegistry:TreasuryChanged", async ({ event, context }) => {
  const values = { treasury: event.args.treasury, updatedBlock: event.block.number };
  await context.db
    .insert(policy)
    .values({ contract: "registry", ...values })
    .onConflictDoUpdate(values);
});
