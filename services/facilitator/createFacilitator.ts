import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { createProjectionsClient } from "../projections/createProjectionsClient.ts";
import { BLOCK_TIME_MS, CHAIN_ID } from "../protocol/constants.ts";
import { defined } from "../protocol/defined.ts";
import { gasCostInTokenUnits } from "../protocol/gasCostInTokenUnits.ts";
import { RECLAIM_INTERVAL_SECONDS, reclaimStoreSpace, runBackgroundPass } from "./backgroundWork.ts";
import { createChainReader } from "./chain.ts";
import { facilitatorListener, listen } from "./createFacilitatorApp.ts";
import { createEscrowBook } from "./escrowBook/createEscrowBook.ts";
import type { Clock, FacilitatorContext } from "./facilitatorContext.ts";
import { systemClock } from "./facilitatorContext.ts";
import type { FacilitatorConfig } from "./loadFacilitatorConfig.ts";
import { batchSettings } from "./loadFacilitatorConfig.ts";
import { createLogger } from "./logger.ts";
import { createFacilitatorMetrics } from "./metrics.ts";
import type { RpcErrorObserver } from "./observedTransport.ts";
import { createRelayer } from "./relayer/createRelayer.ts";
import { createReservedTerms } from "./reservedTerms.ts";
import { createStore } from "./store/createStore.ts";
import { readBookCursor } from "./store/escrowBook.ts";
import { readCommittedUnmined } from "./store/reservations.ts";
import { readBookTotals, recordSettlementBook } from "./store/settlementBooks.ts";
import { beatSignerHolder, forgetSignerLeases, holdSignerLease, releaseSignerLeases } from "./store/signerLeases.ts";

export type CreateFacilitatorOptions = { clock?: Clock; logger?: Logger; backgroundIntervalMs?: number };

/** A running facilitator: its URL, its context (for tests and tools), and `stop`. */
export type Facilitator = { url: string; server: Server; ctx: FacilitatorContext; stop(): Promise<void> };

/**
 * Builds and starts a facilitator from validated configuration: store (migrated), chain reader, relayer,
 * HTTP server and the background loop (expiry, settlement retries, strikes).
 * @example const facilitator = await createFacilitator(loadFacilitatorConfig(process.env))
 */
export async function createFacilitator(
  config: FacilitatorConfig,
  options: CreateFacilitatorOptions = {},
): Promise<Facilitator> {
  const logger = options.logger ?? createLogger("facilitator", config.LOG_LEVEL);
  const store = await createStore({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    schema: config.DATABASE_SCHEMA,
  });
  // Created once the relayer is (it reads the relayer's balances); every use below runs after that.
  let metrics: FacilitatorContext["metrics"];
  const onRpcError: RpcErrorObserver = (e) => metrics.rpcErrors.inc(e);
  const chain = createChainReader({
    rpcUrl: config.RPC_URL,
    escrow: config.ESCROW_ADDRESS,
    registry: config.REGISTRY_ADDRESS,
    token: config.TOKEN_ADDRESS,
    logRangeBlocks: config.LOG_RANGE_BLOCKS,
    rpcTimeoutMs: config.RPC_TIMEOUT_MS,
    onRpcError,
  });
  const clock = options.clock ?? systemClock;
  const batching = batchSettings(config);
  /** This instance's name in the signer leases: new at every start, so a restart never inherits a dead run's. */
  const holder = randomUUID();
  const relayer = createRelayer({
    rpcUrl: config.RPC_URL,
    escrow: config.ESCROW_ADDRESS,
    registry: config.REGISTRY_ADDRESS,
    relayerKeys: config.RELAYER_KEYS,
    facilitatorKey: (config.FACILITATOR_KEY ?? defined(config.RELAYER_KEYS[0], "RELAYER_KEYS")) as `0x${string}`,
    batchWindowMs: batching.windowMs,
    batchMaxItems: batching.maxItems,
    minBatchIntervalMs: batching.minIntervalMs,
    receiptTimeoutMs: config.RECEIPT_TIMEOUT_MS,
    maxFeePerGas: config.MAX_FEE_PER_GAS,
    // Only committed debits are held: a confirmed settle waits for its debit's mining.
    hold:
      config.SETTLEMENT === "committed"
        ? {
            marginBps: config.HOLD_MARGIN_BPS,
            longestHoldSeconds: config.HOLD_MAX_SECONDS,
            deadlineMarginSeconds: config.HOLD_DEADLINE_MARGIN_SECONDS,
            feeBps: async () => (await chain.escrowPolicy()).feeBps,
          }
        : undefined,
    now: () => clock.now(),
    onBatchCut: (cut) => {
      for (const seconds of cut.heldSeconds) metrics.holdSeconds.observe(seconds);
      if (cut.reason !== "deadline" && cut.reason !== "longest_hold") return;
      metrics.forcedBatches.inc({ reason: cut.reason });
      metrics.forcedDebits.inc({ reason: cut.reason }, cut.items);
    },
    logger,
    rpcTimeoutMs: config.RPC_TIMEOUT_MS,
    onRpcError,
    leases: {
      leaseMs: config.SIGNER_LEASE_SECONDS * 1000,
      book: {
        beat: (leaseMs) => beatSignerHolder(store, holder, leaseMs),
        hold: (address, leaseMs) => holdSignerLease(store, holder, address, leaseMs),
        release: (addresses) => releaseSignerLeases(store, holder, addresses),
      },
    },
    onReplacement: () => metrics.replacements.inc(),
    onCancel: (cancel) => metrics.cancels.inc({ reason: cancel.reason }),
    onBatch: (book) => {
      metrics.batchSize.observe(book.items);
      metrics.batchGas.observe(Number(book.gasUsed) / book.items);
      const cost = gasCostInTokenUnits(book.gasUsed, book.gasPriceWei);
      if (book.debits > 0) metrics.debitCost.observe(Number(cost) / book.debits);
      if (book.forced && cost > book.treasuryUnits)
        metrics.forcedLoss.inc({ reason: book.forced }, Number(cost - book.treasuryUnits));
      store
        .transaction((tx) => recordSettlementBook(tx, book, clock.now()))
        .catch((error) =>
          logger.error(
            { err: (error as Error).message, transaction: book.transaction },
            "could not record a settlement book",
          ),
        );
    },
  });
  metrics = createFacilitatorMetrics({
    gasBalances: () => relayer.gasBalances(),
    fullBatchCost: async () => (await relayer.funding()).minimumBalance,
    bookTotals: () => readBookTotals(store),
    committedUnmined: () => readCommittedUnmined(store, clock.now()),
    heldDebits: () => relayer.heldDebits(),
    escrowBook: async () => {
      const [head, cursor] = await Promise.all([chain.publicClient.getBlockNumber(), readBookCursor(store)]);
      return cursor && { head, bookBlock: cursor.syncedBlock, currentAt: cursor.currentAt };
    },
    storeBusySeconds: () => store.busySeconds(),
    now: () => clock.now(),
  });
  const ctx: FacilitatorContext = {
    store,
    chain,
    relayer,
    clock,
    logger,
    metrics,
    escrow: config.ESCROW_ADDRESS,
    token: config.TOKEN_ADDRESS,
    settleWaitMs: config.SETTLE_WAIT_MS,
    settlement: config.SETTLEMENT,
    exactCoversSettlement: config.EXACT_COVERS_SETTLEMENT,
    settleLeaseSeconds: config.SETTLE_LEASE_SECONDS,
    driving: new Set(),
    reservedTerms: createReservedTerms(),
    escrowBook: createEscrowBook({
      store,
      chain,
      clock,
      logger,
      startBlock: config.ESCROW_START_BLOCK,
      maxLagSeconds: config.ESCROW_BOOK_MAX_LAG_SECONDS,
      marginBlocks: config.ESCROW_BOOK_MARGIN_BLOCKS,
      logRangeBlocks: config.LOG_RANGE_BLOCKS,
      pollMs: BLOCK_TIME_MS,
      catchUpGapMs: BLOCK_TIME_MS / 2,
      auditMs: 30_000,
      auditSize: 8,
      onCorrection: () => metrics.bookCorrections.inc(),
      onIncompletePage: () => metrics.bookIncompletePages.inc(),
    }),
    projections: config.INDEXER_URL ? createProjectionsClient(config.INDEXER_URL) : undefined,
  };

  const readiness = async () => {
    try {
      await store.query("SELECT 1");
      const [chainId, balances, funding, book] = await Promise.all([
        chain.publicClient.getChainId(),
        relayer.gasBalances(),
        relayer.funding(),
        readBookCursor(store),
      ]);
      const lowGas = balances.filter((b) => b.balance < config.LOW_GAS_WEI).map((b) => b.address);
      const unfunded = [...new Set([...relayer.unfundedSigners(), ...funding.belowMinimum])];
      // Ready while one debit signer can pay, as verify takes payments then: the others are named in `unfunded` (and
      // alerted on), and one low key of a pool that instances share must not take every instance out of service.
      const paying = balances.filter((b) => b.debits && !unfunded.includes(b.address));
      const state = {
        chainId,
        lowGas,
        unfunded,
        minimumBalanceWei: funding.minimumBalance.toString(),
        maxFeePerGas: funding.maxFeePerGas.toString(),
        ...(config.MAX_FEE_PER_GAS === undefined ? {} : { maxFeePerGasCap: config.MAX_FEE_PER_GAS.toString() }),
        escrowBook: book && {
          block: book.syncedBlock.toString(),
          currentAgeSeconds: Math.max(0, clock.now() - book.currentAt),
        },
      };
      // Verify trusts the book only this long after it last reached the head (EscrowBookBehindError past it).
      const bookBehind = !book || clock.now() - book.currentAt > config.ESCROW_BOOK_MAX_LAG_SECONDS;
      // Every signature it checks and every transaction it sends is bound to the test network's chain id: another
      // chain's RPC (a wrong RPC_URL) would take payments it can never settle.
      if (chainId !== CHAIN_ID)
        return { ready: false, reason: `RPC_URL serves chain ${chainId}, not ${CHAIN_ID}`, ...state };
      if (paying.length === 0) return { ready: false, reason: `relayer unfunded: ${unfunded.join(", ")}`, ...state };
      if (funding.feeAboveCap) return { ready: false, reason: "the chain's fee is above MAX_FEE_PER_GAS", ...state };
      if (bookBehind)
        return {
          ready: false,
          reason: book
            ? `the escrow book has not reached the chain's head for ${state.escrowBook?.currentAgeSeconds} s (limit ${config.ESCROW_BOOK_MAX_LAG_SECONDS} s)`
            : "the escrow book is being built from the chain",
          ...state,
        };
      return { ready: true, ...state };
    } catch (error) {
      return { ready: false, reason: (error as Error).message.split("\n")[0] };
    }
  };
  const listener = facilitatorListener(
    ctx,
    config.CALLER_AUTH ? { enabled: true, secret: config.CALLER_AUTH_SECRET } : { enabled: false },
    readiness,
  );
  if (store.kind === "pglite") await forgetSignerLeases(store);
  await relayer.startLeasing();
  const server = await listen(listener, config.PORT, config.HOST);
  ctx.escrowBook.start();
  const { port } = server.address() as AddressInfo;

  let stopped = false;
  let pass: Promise<void> = Promise.resolve();
  let reclaimedAt = ctx.clock.now();
  const reclaim = async () => {
    if (ctx.clock.now() - reclaimedAt < RECLAIM_INTERVAL_SECONDS) return;
    reclaimedAt = ctx.clock.now();
    const heldMs = await reclaimStoreSpace(store);
    if (heldMs > 0) logger.debug({ heldMs: Math.round(heldMs) }, "store space reclaimed");
  };
  const interval = setInterval(() => {
    pass = pass.then(() =>
      stopped
        ? undefined
        : runBackgroundPass(ctx)
            .catch((error) => logger.warn({ err: (error as Error).message }, "background pass failed"))
            .then(reclaim)
            .catch((error) => logger.warn({ err: (error as Error).message }, "store maintenance failed")),
    );
  }, options.backgroundIntervalMs ?? 1_000);

  logger.info(
    { port, store: store.kind, relayers: relayer.relayerAddresses, settlement: config.SETTLEMENT },
    "facilitator listening",
  );
  return {
    url: `http://${config.HOST}:${port}`,
    server,
    ctx,
    async stop() {
      stopped = true;
      clearInterval(interval);
      await ctx.escrowBook.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await pass;
      await relayer.drain();
      while (ctx.driving.size > 0) await Promise.allSettled([...ctx.driving]);
      await relayer.stopLeasing();
      await store.close();
    },
  };
}
