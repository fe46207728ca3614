import type { Logger } from "pino";
import type { Address } from "viem";
import type { ProjectionsClient } from "../projections/createProjectionsClient.ts";
import type { ChainReader } from "./chain.ts";
import type { EscrowBook } from "./escrowBook/createEscrowBook.ts";
import type { FacilitatorMetrics } from "./metrics.ts";
import type { Relayer } from "./relayer/createRelayer.ts";
import type { ReservedTermsBook } from "./reservedTerms.ts";
import type { Store } from "./store/createStore.ts";

/** Unix seconds; injected so that tests can move time (result TTL, expiry). */
export type Clock = { now(): number };

/** The system clock. */
export const systemClock: Clock = { now: () => Math.floor(Date.now() / 1000) };

/** Everything the facilitator's operations use; routes only translate HTTP to these. */
export type FacilitatorContext = {
  store: Store;
  chain: ChainReader;
  relayer: Relayer;
  clock: Clock;
  logger: Logger;
  metrics: FacilitatorMetrics;
  escrow: Address;
  token: Address;
  /** The indexer's projections (revenue); absent when no INDEXER_URL is configured. */
  projections?: ProjectionsClient | undefined;
  /** How long a settle waits for a debit driven by another request before answering settlement_pending. */
  settleWaitMs: number;
  /** Whether escrow settles are answered once committed or once mined (SETTLEMENT). */
  settlement: "committed" | "confirmed";
  /** Whether verify refuses an `exact` payment whose treasury share does not pay for its settlement (EXACT_COVERS_SETTLEMENT). */
  exactCoversSettlement: boolean;
  /** Seconds a settle leases the right to drive its debit (SETTLE_LEASE_SECONDS). */
  settleLeaseSeconds: number;
  /** Every buyer's escrow state, kept in the store from the escrow's events; what verify reserves against. */
  escrowBook: EscrowBook;
  /** The terms of escrow reservations verified here and not settled yet, for a one-statement commit. */
  reservedTerms: ReservedTermsBook;
  /** Debits answered committed whose mining this process is still driving; stop waits for them. */
  driving: Set<Promise<unknown>>;
};
