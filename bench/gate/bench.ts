/**
 * `npm run bench:gate`: paid calls through the whole `npm start` stack as shipped (indexer live), with 500 ms blocks
 * (and automine when asked), every 200 checked against one `Debited` event on chain; and, in the same run, the gate
 * alone (stub facilitator) and an unpaid call of the same handler at the same connection counts, so that its headline
 * is ratios whose two sides share the machine and the hour. Writes the "Gate" section of docs/benchmarks.md. Sizes:
 * BENCH_GATE_PAID (paid calls per loaded run), BENCH_GATE_LATENCY (calls at one connection), BENCH_GATE_WARMUP (paid
 * calls after each stack's start, before the measured loads, reported apart), BENCH_GATE_CONNECTIONS ("32,128"),
 * BENCH_GATE_MINING ("interval"; "auto,interval" for both), BENCH_GATE_BUYERS, BENCH_GATE_STUB (calls per gate-alone
 * and unpaid loaded run); BENCH_GATE_STOCK (paid calls per loaded run of the stock x402 stack on the stack's chain; 0
 * leaves it out) and BENCH_GATE_STOCK_LATENCY (its calls at one connection); BENCH_GATE_CONFIRMED=1 adds a stack
 * with SETTLEMENT=confirmed (500 ms blocks, first connection count) for comparison; BENCH_GATE_POSTGRES=1 runs every
 * stack with `--postgres` (its stores on a PostgreSQL server of its own, counted as a part) and writes the "Gate on
 * PostgreSQL" section instead; BENCH_GATE_MACHINE_NOTE adds a sentence about the machine. SETTLEMENT is passed through
 * to the stack.
 */
import { parseCommandLine } from "../../services/stack/parseCommandLine.ts";

parseCommandLine(
  `usage: npm run bench:gate

Paid calls through the whole \`npm start\` stack, and the gate alone; writes the "Gate" section of
docs/benchmarks.md. Environment: BENCH_GATE_PAID (6000), BENCH_GATE_LATENCY (3000), BENCH_GATE_WARMUP (4000),
BENCH_GATE_CONNECTIONS (32,128), BENCH_GATE_MINING (interval; auto,interval for both), BENCH_GATE_BUYERS (64),
BENCH_GATE_STUB (3000), BENCH_GATE_STOCK (1000; 0 leaves the stock x402 stack out),
BENCH_GATE_STOCK_LATENCY (40), BENCH_GATE_DRAIN_SECONDS (60), BENCH_GATE_CONFIRMED (1 adds SETTLEMENT=confirmed),
BENCH_GATE_POSTGRES (1: every stack with --postgres, written to the "Gate on PostgreSQL" section instead),
BENCH_GATE_MACHINE_NOTE (a sentence about the machine), SETTLEMENT.`,
  {},
);

// What it runs takes a second or more to load its imports: loaded after the command line, so that --help and a
// wrong option answer at once.
await import("./runGateBench.ts");
