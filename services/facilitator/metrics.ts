import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** The facilitator's Prometheus metrics, on a registry of its own (several instances may share a process in tests). */
export type FacilitatorMetrics = ReturnType<typeof createFacilitatorMetrics>;

/**
 * Creates the facilitator's metrics; `gasBalances` is read at scrape time so /metrics shows low relayer gas.
 * @example const metrics = createFacilitatorMetrics(() => relayer.gasBalances())
 */
export function createFacilitatorMetrics(gasBalances: () => Promise<{ address: string; balance: bigint }[]>) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
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
      buckets: [20_000, 30_000, 40_000, 50_000, 70_000, 100_000, 150_000],
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
