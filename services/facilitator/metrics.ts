import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { BookTotals } from "./store/settlementBooks.ts";

/** The facilitator's Prometheus metrics, on a registry of its own (several instances may share a process in tests). */
export type FacilitatorMetrics = ReturnType<typeof createFacilitatorMetrics>;

/**
 * Creates the facilitator's metrics; `gasBalances` and `bookTotals` are read at scrape time, so /metrics shows low
 * relayer gas and the relayer's books (kept in the store, so they survive a restart and add up across instances).
 * @example const metrics = createFacilitatorMetrics(() => relayer.gasBalances(), () => readBookTotals(store))
 */
export function createFacilitatorMetrics(
  gasBalances: () => Promise<{ address: string; balance: bigint }[]>,
  bookTotals: () => Promise<BookTotals>,
) {
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
  };
}
