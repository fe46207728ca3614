import { expect } from "chai";
import type { MetricReads } from "./metrics.ts";
import { createFacilitatorMetrics } from "./metrics.ts";

describe("facilitator metrics: reads at scrape time", function () {
  /** Reads that count their calls; the store's book totals grow by one transaction at each read. */
  function countingReads(store: { busySeconds: number | null } = { busySeconds: 0 }) {
    const calls = { gasBalances: 0, fullBatchCost: 0, bookTotals: 0, committedUnmined: 0, escrowBook: 0 };
    const counted =
      <T>(name: keyof typeof calls, value: () => T) =>
      async () => {
        calls[name] += 1;
        return value();
      };
    const reads: MetricReads = {
      gasBalances: counted("gasBalances", () => [
        { address: "0xaa", balance: 3_000n, debits: true },
        { address: "0xbb", balance: 500n, debits: false },
      ]),
      fullBatchCost: counted("fullBatchCost", () => 1_000n),
      bookTotals: counted("bookTotals", () => ({
        transactions: calls.bookTotals,
        debits: 0,
        gasUsed: 0n,
        costUnits: 0n,
        treasuryUnits: 0n,
      })),
      committedUnmined: counted("committedUnmined", () => ({ debits: 2, oldestAt: 90, nearExpiry: 1 })),
      escrowBook: counted("escrowBook", () => ({ head: 12n, bookBlock: 10n, currentAt: 95 })),
      heldDebits: async () => ({
        debits: 3,
        oldestAt: 70,
        economics: { treasuryUnits: 150n, costUnits: 1_400n, marginUnits: -1_250n },
      }),
      storeBusySeconds: () => store.busySeconds,
      now: () => 100,
    };
    return { calls, reads };
  }

  it("makes each read once per scrape, however many gauges use it, and afresh at the next scrape", async function () {
    const { calls, reads } = countingReads();
    const metrics = createFacilitatorMetrics(reads);
    const first = await metrics.registry.metrics();
    expect(calls).to.deep.equal({
      gasBalances: 1,
      fullBatchCost: 1,
      bookTotals: 1,
      committedUnmined: 1,
      escrowBook: 1,
    });
    expect(first).to.match(/^facilitator_books_transactions 1$/m);
    expect(first).to.match(/^facilitator_relayer_balance_batches\{address="0xaa"\} 3$/m);
    // The strike key alone sends no batch: its gas shows in wei only, so the batch alerts never fire for it.
    expect(first).to.match(/^facilitator_relayer_gas_balance_wei\{address="0xbb"\} 500$/m);
    expect(first).not.to.match(/^facilitator_relayer_balance_batches\{address="0xbb"\}/m);
    expect(first).to.match(/^facilitator_committed_unmined_debits 2$/m);
    expect(first).to.match(/^facilitator_committed_unmined_oldest_seconds 10$/m);
    expect(first).to.match(/^facilitator_committed_unmined_near_expiry 1$/m);
    expect(first).to.match(/^facilitator_escrow_book_lag_blocks 2$/m);
    expect(first).to.match(/^facilitator_escrow_book_current_age_seconds 5$/m);
    expect(first).to.match(/^facilitator_held_debits 3$/m);
    expect(first).to.match(/^facilitator_held_oldest_seconds 30$/m);
    expect(first).to.match(/^facilitator_held_expected_margin_units -1250$/m);
    const second = await metrics.registry.metrics();
    expect(calls.bookTotals).to.equal(2);
    expect(second, "the next scrape reads the store again").to.match(/^facilitator_books_transactions 2$/m);
  });

  it("counts the embedded store's busy seconds as they grow, and shows none for a store on PostgreSQL", async function () {
    const store = { busySeconds: 1.5 as number | null };
    const metrics = createFacilitatorMetrics(countingReads(store).reads);
    expect(await metrics.registry.metrics()).to.match(/^facilitator_store_busy_seconds_total 1\.5$/m);
    store.busySeconds = 4;
    expect(await metrics.registry.metrics()).to.match(/^facilitator_store_busy_seconds_total 4$/m);
    const onPostgres = createFacilitatorMetrics(countingReads({ busySeconds: null }).reads);
    expect(await onPostgres.registry.metrics()).not.to.include("facilitator_store_busy_seconds_total");
  });
});
