import { index, onchainTable, primaryKey } from "ponder";

/**
 * One registered resource: every index-record field the chain knows (ResourceRegistry events), plus what the
 * marketplace needs to keep its catalog in step (`updatedBlock`) and to score it (`strikesTotal`).
 */
export const resource = onchainTable(
  "resource",
  (t) => ({
    resourceId: t.hex().primaryKey(),
    creator: t.hex().notNull(),
    agentId: t.bigint().notNull(),
    slug: t.text().notNull(),
    payout: t.hex().notNull(),
    category: t.text().notNull(),
    base: t.bigint().notNull(),
    perKB: t.bigint().notNull(),
    max: t.bigint().notNull(),
    cardUri: t.text().notNull(),
    cardHash: t.hex().notNull(),
    active: t.boolean().notNull(),
    bond: t.bigint().notNull(),
    /** Strikes since the last slash (the contract's counter). */
    strikes: t.integer().notNull(),
    /** Every strike ever recorded. */
    strikesTotal: t.integer().notNull(),
    /** Block timestamp of the last deactivation, 0 while active. */
    deactivatedAt: t.bigint().notNull(),
    registeredBlock: t.bigint().notNull(),
    registeredAt: t.bigint().notNull(),
    registeredTx: t.hex().notNull(),
    /** Block of the last event that changed this row; readers sync incrementally on it. */
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({
    categoryIdx: index().on(table.category),
    updatedIdx: index().on(table.updatedBlock),
    agentIdx: index().on(table.agentId),
  }),
);

/** An ERC-8004 identity: owner (ERC-721 Transfer), registration URI and verified wallet (IdentityRegistry events). */
export const agent = onchainTable(
  "agent",
  (t) => ({
    agentId: t.bigint().primaryKey(),
    owner: t.hex().notNull(),
    uri: t.text().notNull(),
    /** The `agentWallet` metadata, null when unset. */
    wallet: t.hex(),
    registeredBlock: t.bigint().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({ ownerIdx: index().on(table.owner) }),
);

/** Free-form ERC-8004 metadata of an agent (every `MetadataSet` except `agentWallet`). */
export const agentMetadata = onchainTable(
  "agent_metadata",
  (t) => ({
    agentId: t.bigint().notNull(),
    key: t.text().notNull(),
    value: t.hex().notNull(),
    updatedBlock: t.bigint().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.agentId, table.key] }) }),
);

/**
 * One `BatchDebited` log (id: the log's id): a run of settled calls for one resource in one transaction, from the escrow
 * debit or the `exact` path, kept as the escrow packed it (`debits`: buyer, nonce and amount, 68 bytes a debit;
 * services/projections/debitsOfBatch.ts expands it, with each debit's split) beside its totals, split as the escrow
 * credited each debit, the fee and the payout credited. One row per log, not per debit: the indexer's cost per paid
 * call is its share of a log.
 */
export const debitBatch = onchainTable(
  "debit_batch",
  (t) => ({
    id: t.text().primaryKey(),
    resourceId: t.hex().notNull(),
    scheme: t.text().notNull(),
    feeBps: t.integer().notNull(),
    payout: t.hex().notNull(),
    debits: t.hex().notNull(),
    calls: t.integer().notNull(),
    gross: t.bigint().notNull(),
    creator: t.bigint().notNull(),
    treasury: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
  }),
  (table) => ({ resourceIdx: index().on(table.resourceId) }),
);

/** Per-resource totals of `debit_batch`: settled calls, gross, creator and treasury legs, last settlement. */
export const revenue = onchainTable("revenue", (t) => ({
  resourceId: t.hex().primaryKey(),
  /** A 64-bit count: at a thousand calls a second, one resource passes a 32-bit integer within a month. */
  calls: t.bigint().notNull(),
  gross: t.bigint().notNull(),
  creator: t.bigint().notNull(),
  treasury: t.bigint().notNull(),
  lastSettledAt: t.bigint().notNull(),
  lastSettledBlock: t.bigint().notNull(),
}));

/**
 * One strike (`StrikeRecorded`) against a resource's failed call: the buyer's call with payment nonce `idemKey`,
 * struck once under `strikeKey` = keccak256(abi.encode(buyer, idemKey)).
 */
export const strike = onchainTable(
  "strike",
  (t) => ({
    id: t.text().primaryKey(),
    resourceId: t.hex().notNull(),
    strikeKey: t.hex().notNull(),
    buyer: t.hex().notNull(),
    idemKey: t.hex().notNull(),
    strikes: t.integer().notNull(),
    reason: t.text().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({ resourceIdx: index().on(table.resourceId) }),
);

/** One change of a resource's bond: `posted`, `withdrawn` or `slashed`, with the bond after it. */
export const bond = onchainTable(
  "bond",
  (t) => ({
    id: t.text().primaryKey(),
    resourceId: t.hex().notNull(),
    kind: t.text().notNull(),
    account: t.hex(),
    amount: t.bigint().notNull(),
    bondAfter: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({ resourceIdx: index().on(table.resourceId) }),
);

/**
 * A buyer's escrow: balance, pending withdrawal, the spend limit in force and a requested tightening of it that
 * anyone may apply from `pendingSpendLimitAt` (0: none pending) (PaymentEscrow events).
 */
export const buyerBalance = onchainTable("buyer_balance", (t) => ({
  buyer: t.hex().primaryKey(),
  balance: t.bigint().notNull(),
  pendingWithdrawal: t.bigint().notNull(),
  withdrawalUnlocksAt: t.bigint().notNull(),
  spendLimit: t.bigint().notNull(),
  spendPeriod: t.bigint().notNull(),
  pendingSpendLimit: t.bigint().notNull(),
  pendingSpendPeriod: t.bigint().notNull(),
  pendingSpendLimitAt: t.bigint().notNull(),
  updatedBlock: t.bigint().notNull(),
}));

/** Admin settings of each contract (`registry`, `escrow`): treasury, fee, strike policy. */
export const policy = onchainTable("policy", (t) => ({
  contract: t.text().primaryKey(),
  treasury: t.hex(),
  feeBps: t.integer(),
  strikeThreshold: t.integer(),
  slashBps: t.integer(),
  minBond: t.bigint(),
  updatedBlock: t.bigint().notNull(),
}));
