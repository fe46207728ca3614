import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { HeldDebits } from "./relayer/createRelayer.ts";
import type { BookTotals } from "./store/settlementBooks.ts";

/**
 * A read shared by the callers that ask while it is under way and made afresh after: the gauges of one scrape are
 * collected together, so each read is made once per scrape, and the next scrape never sees an old answer.
 */
function sharedWhileInFlight<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | null = null;
  return () => {
    inFlight ??= read().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
}

/** The facilitator's Prometheus metrics, on a registry of its own (several instances may share a process in tests). */
export type FacilitatorMetrics = ReturnType<typeof createFacilitatorMetrics>;

/** What /metrics reads at scrape time: from the chain (through the relayer), the store and the escrow book. */
export type MetricReads = {
  /** Native gas balance of every relayer signer. */
  /** Every relayer signer's gas balance; `debits` false for the strike key alone (FACILITATOR_KEY given its own key). */
  gasBalances: () => Promise<{ address: string; balance: bigint; debits: boolean }[]>;
  /** What one full batch needs up front at the current fee (the least a debit signer must hold). */
  fullBatchCost: () => Promise<bigint>;
  /** The relayer's books, kept in the store (they survive a restart and add up across instances). */
  bookTotals: () => Promise<BookTotals>;
  /** Debits answered committed and not mined yet, and when the oldest was committed (seconds). */
  committedUnmined: () => Promise<{ debits: number; oldestAt: number | null; nearExpiry: number }>;
  /** The chain's head and the escrow book's block, and when the book was last current (seconds). */
  escrowBook: () => Promise<{ head: bigint; bookBlock: bigint; currentAt: number } | null>;
  /** The debits the relayer holds until their batch pays for itself (this instance's queue). */
  heldDebits: () => Promise<HeldDebits>;
  /** Seconds the embedded store's statements have held its engine, on this process's thread (null: PostgreSQL). */
  storeBusySeconds: () => number | null;
  /** Now, in seconds (the facilitator's clock). */
  now: () => number;
};

/** A gauge set at scrape time from one read; a read that fails leaves the gauge at its last value. */
function readGauge<T>(
  registry: Registry,
  name: string,
  help: string,
  read: () => Promise<T>,
  set: (gauge: Gauge, value: T) => void,
  labelNames: string[] = [],
): Gauge {
  return new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      const value = await read().then(
        (v) => ({ v }),
        () => null,
      );
      if (value) set(this, value.v);
    },
  });
}

/**
 * Creates the facilitator's metrics; the gauges are read at scrape time (`reads`), so /metrics shows low relayer gas,
 * the relayer's books, committed debits not mined yet and the escrow book's lag as they are when scraped.
 * `alerts.yml` beside this file holds the alert rules over them (docs/operations.md, "Alerts").
 * @example const metrics = createFacilitatorMetrics({ gasBalances, fullBatchCost, bookTotals, committedUnmined, escrowBook, now })
 */
export function createFacilitatorMetrics(given: MetricReads) {
  // Several gauges read the same thing at one scrape: each read is made once per scrape, not once per gauge.
  const once = sharedWhileInFlight;
  const reads: MetricReads = {
    gasBalances: once(given.gasBalances),
    fullBatchCost: once(given.fullBatchCost),
    bookTotals: once(given.bookTotals),
    committedUnmined: once(given.committedUnmined),
    escrowBook: once(given.escrowBook),
    heldDebits: once(given.heldDebits),
    storeBusySeconds: given.storeBusySeconds,
    now: given.now,
  };
  const { gasBalances, bookTotals } = reads;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const books: { name: string; help: string; read: (t: BookTotals) => number }[] = [
    {
      name: "transactions",
      help: "Settlement transactions mined (batches and exact payments)",
      read: (t) => t.transactions,
    },
    { name: "debits", help: "Debits settled by them", read: (t) => t.debits },
    { name: "gas_used", help: "Gas they used", read: (t) => Number(t.gasUsed) },
    {
      name: "cost_units",
      help: "What that gas cost at each transaction's effective gas price, in token base units (6 decimals)",
      read: (t) => Number(t.costUnits),
    },
    {
      name: "treasury_units",
      help: "What the treasury earned by them, in token base units",
      read: (t) => Number(t.treasuryUnits),
    },
  ];
  // Only for an embedded store: its statements run on the facilitator's own thread, and past about half of each second
  // the facilitator is bound by them (docs/operations.md, "Embedded store busy").
  if (reads.storeBusySeconds() !== null) {
    let counted = 0;
    new Counter({
      name: "facilitator_store_busy_seconds_total",
      help: "Seconds the embedded store (PGlite) ran statements on the facilitator's thread; absent on PostgreSQL",
      registers: [registry],
      collect() {
        const busy = reads.storeBusySeconds() ?? counted;
        this.inc(busy - counted);
        counted = busy;
      },
    });
  }
  for (const book of books)
    new Gauge({
      name: `facilitator_books_${book.name}`,
      help: `Relayer books: ${book.help}`,
      registers: [registry],
      async collect() {
        const totals = await bookTotals().catch(() => null);
        if (totals) this.set(book.read(totals));
      },
    });
  return {
    registry,
    verify: new Counter({
      name: "facilitator_verify_total",
      help: "POST /verify outcomes",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    settle: new Counter({
      name: "facilitator_settle_total",
      help: "Settlement outcomes",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    release: new Counter({
      name: "facilitator_release_total",
      help: "Releases, by whether a strike was queued",
      labelNames: ["strike"],
      registers: [registry],
    }),
    bookCorrections: new Counter({
      name: "facilitator_escrow_book_corrections_total",
      help: "Buyers the escrow book's audit found booked differently from the chain, and corrected",
      registers: [registry],
    }),
    bookIncompletePages: new Counter({
      name: "facilitator_escrow_book_incomplete_pages_total",
      help: "Pages of escrow events refused because the RPC's logs lacked a debit this facilitator saw mined in them",
      registers: [registry],
    }),
    replacements: new Counter({
      name: "facilitator_relayer_replacements_total",
      help: "Fee-bumped replacements of relayer transactions not mined in time",
      registers: [registry],
    }),
    cancels: new Counter({
      name: "facilitator_relayer_cancels_total",
      help: "Cancels sent (a zero-value self-transfer at the nonce): `stuck`, a transaction not mined through its replacements; `unknown`, a pending nonce the relayer held no transaction of (a crash)",
      labelNames: ["reason"],
      registers: [registry],
    }),
    strikes: new Counter({
      name: "facilitator_strikes_recorded_total",
      help: "Strikes recorded on chain",
      registers: [registry],
    }),
    batchSize: new Histogram({
      name: "facilitator_debit_batch_size",
      help: "Debits per batch transaction",
      buckets: [1, 2, 4, 8, 16, 32, 64, 128],
      registers: [registry],
    }),
    batchGas: new Histogram({
      name: "facilitator_debit_gas_per_item",
      help: "Gas used per debit in a batch transaction",
      buckets: [5_000, 10_000, 20_000, 30_000, 40_000, 50_000, 70_000, 100_000, 150_000],
      registers: [registry],
    }),
    debitCost: new Histogram({
      name: "facilitator_debit_cost_units",
      help: "Settlement cost per debit (its batch's cost shared evenly), in token base units",
      buckets: [10, 25, 50, 100, 200, 400, 800, 1_600, 3_200],
      registers: [registry],
    }),
    requestSeconds: new Histogram({
      name: "facilitator_http_request_duration_seconds",
      help: "HTTP request duration",
      labelNames: ["route", "status"],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers: [registry],
    }),
    gas: new Gauge({
      name: "facilitator_relayer_gas_balance_wei",
      help: "Native gas balance of each relayer signer",
      labelNames: ["address"],
      registers: [registry],
      async collect() {
        for (const { address, balance } of await gasBalances().catch(() => [])) this.set({ address }, Number(balance));
      },
    }),
    balanceBatches: readGauge(
      registry,
      "facilitator_relayer_balance_batches",
      "Each debit signer's gas balance in full batches at the current fee (below 1: it cannot send a full batch)",
      () => Promise.all([gasBalances(), reads.fullBatchCost()]),
      (gauge, [balances, cost]) => {
        // The strike key alone sends no batch: /ready does not ask it for one, and neither does this gauge's alert.
        for (const { address, balance } of balances.filter((b) => b.debits))
          gauge.set({ address }, cost > 0n ? Number((balance * 1000n) / cost) / 1000 : 0);
      },
      ["address"],
    ),
    committedUnmined: readGauge(
      registry,
      "facilitator_committed_unmined_debits",
      "Debits answered committed (the call was served) whose transaction is not mined yet",
      reads.committedUnmined,
      (gauge, { debits }) => gauge.set(debits),
    ),
    committedUnminedAge: readGauge(
      registry,
      "facilitator_committed_unmined_oldest_seconds",
      "Age of the oldest debit answered committed and not mined yet (0 when there is none)",
      reads.committedUnmined,
      (gauge, { oldestAt }) => gauge.set(oldestAt === null ? 0 : Math.max(0, reads.now() - oldestAt)),
    ),
    committedNearExpiry: readGauge(
      registry,
      "facilitator_committed_unmined_near_expiry",
      "Debits answered committed, not mined yet, with less than 30 s of their signed window left (held debits go out well before)",
      reads.committedUnmined,
      (gauge, { nearExpiry }) => gauge.set(nearExpiry),
    ),
    heldDebits: readGauge(
      registry,
      "facilitator_held_debits",
      "Committed debits the relayer holds until their batch pays for itself (HOLD_MARGIN_BPS), its deadline or the longest hold",
      reads.heldDebits,
      (gauge, held) => gauge.set(held.debits),
    ),
    heldOldest: readGauge(
      registry,
      "facilitator_held_oldest_seconds",
      "How long the oldest held debit has been held (0 when none is)",
      reads.heldDebits,
      (gauge, held) => gauge.set(held.oldestAt === null ? 0 : Math.max(0, reads.now() - held.oldestAt)),
    ),
    heldMargin: readGauge(
      registry,
      "facilitator_held_expected_margin_units",
      "What sending every held debit now in one batch would earn the treasury less its gas at the current fee, in token base units (negative: it would lose)",
      reads.heldDebits,
      (gauge, held) => gauge.set(held.economics ? Number(held.economics.marginUnits) : 0),
    ),
    holdSeconds: new Histogram({
      name: "facilitator_debit_hold_seconds",
      help: "How long each held debit was held before its batch went out",
      buckets: [0.5, 1, 5, 15, 30, 60, 120, 300, 900, 1_800, 3_600],
      registers: [registry],
    }),
    forcedBatches: new Counter({
      name: "facilitator_forced_batches_total",
      help: "Batches of held debits sent before they paid for themselves: `deadline`, an authorization about to expire; `longest_hold`, HOLD_MAX_SECONDS reached",
      labelNames: ["reason"],
      registers: [registry],
    }),
    forcedDebits: new Counter({
      name: "facilitator_forced_debits_total",
      help: "Debits in those forced batches",
      labelNames: ["reason"],
      registers: [registry],
    }),
    forcedLoss: new Counter({
      name: "facilitator_forced_loss_units_total",
      help: "What forced batches mined cost beyond what the treasury earned by them, in token base units",
      labelNames: ["reason"],
      registers: [registry],
    }),
    settlementLatency: new Histogram({
      name: "facilitator_settlement_latency_seconds",
      help: "From a debit answered committed to its transaction mined",
      buckets: [1, 2, 5, 10, 30, 60, 120, 300, 900],
      registers: [registry],
    }),
    rpcErrors: new Counter({
      name: "facilitator_rpc_errors_total",
      help: "Failed JSON-RPC requests, by kind (classifyRpcError), endpoint host and method",
      labelNames: ["kind", "endpoint", "method"],
      registers: [registry],
    }),
    escrowBookLag: readGauge(
      registry,
      "facilitator_escrow_book_lag_blocks",
      "Blocks between the chain's head and the escrow book (its margin for lagging RPC nodes included)",
      reads.escrowBook,
      (gauge, book) => {
        if (book) gauge.set(Number(book.head - book.bookBlock));
      },
    ),
    escrowBookAge: readGauge(
      registry,
      "facilitator_escrow_book_current_age_seconds",
      "Seconds since the escrow book last reached the chain's head (verify refuses past ESCROW_BOOK_MAX_LAG_SECONDS)",
      reads.escrowBook,
      (gauge, book) => {
        if (book) gauge.set(Math.max(0, reads.now() - book.currentAt));
      },
    ),
  };
}
