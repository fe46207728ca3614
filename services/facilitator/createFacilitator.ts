import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { createProjectionsClient } from "../projections/createProjectionsClient.ts";
import { BLOCK_TIME_MS } from "../protocol/constants.ts";
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
import { createRelayer } from "./relayer/createRelayer.ts";
import { createReservedTerms } from "./reservedTerms.ts";
import { createStore } from "./store/createStore.ts";
import { readBookTotals, recordSettlementBook } from "./store/settlementBooks.ts";

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
  const chain = createChainReader({
    rpcUrl: config.RPC_URL,
    escrow: config.ESCROW_ADDRESS,
    registry: config.REGISTRY_ADDRESS,
    token: config.TOKEN_ADDRESS,
    logRangeBlocks: config.LOG_RANGE_BLOCKS,
  });
  const clock = options.clock ?? systemClock;
  const batching = batchSettings(config);
  let metrics: FacilitatorContext["metrics"];
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
    onBatch: (book) => {
      metrics.batchSize.observe(book.items);
      metrics.batchGas.observe(Number(book.gasUsed) / book.items);
      if (book.debits > 0)
        metrics.debitCost.observe(Number(gasCostInTokenUnits(book.gasUsed, book.gasPriceWei)) / book.debits);
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
  metrics = createFacilitatorMetrics(
    () => relayer.gasBalances(),
    () => readBookTotals(store),
  );
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
      logRangeBlocks: config.LOG_RANGE_BLOCKS,
      pollMs: BLOCK_TIME_MS,
      catchUpGapMs: BLOCK_TIME_MS / 2,
      auditMs: 30_000,
      auditSize: 8,
      onCorrection: () => metrics.bookCorrections.inc(),
    }),
    projections: config.INDEXER_URL ? createProjectionsClient(config.INDEXER_URL) : undefined,
  };

  const readiness = async () => {
    try {
      await store.query("SELECT 1");
      const [chainId, balances] = await Promise.all([chain.publicClient.getChainId(), relayer.gasBalances()]);
      const lowGas = balances.filter((b) => b.balance < config.LOW_GAS_WEI).map((b) => b.address);
      return { ready: true, chainId, lowGas };
    } catch (error) {
      return { ready: false, reason: (error as Error).message.split("\n")[0] };
    }
  };
  const listener = facilitatorListener(
    ctx,
    config.CALLER_AUTH ? { enabled: true, secret: config.CALLER_AUTH_SECRET } : { enabled: false },
    readiness,
  );
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
      await store.close();
    },
  };
}
