import { parseCommandLine } from "../services/stack/parseCommandLine.ts";

parseCommandLine(
  `usage: npm run bench:indexer

What Ponder costs per Debited event and how many it indexes per second, in realtime and in backfill; writes the
"indexer" section of docs/benchmarks.md. Environment: BENCH_REALTIME_EVENTS (8192), BENCH_WARMUP_EVENTS (8192),
BENCH_STATUS_POLL_MS (100), BENCH_BATCH, BENCH_NORMAL_RATE (200), BENCH_REGISTRATIONS (30), BENCH_POLLING_MS (250),
BENCH_EMPTY_BLOCKS (300), BENCH_EMPTY_GAP_MS (50), BENCH_IDLE_SECONDS (5), BENCH_VARIANTS (installed,patched), BENCH_POSTGRES_URL, BENCH_PGLITE_ROOT, BENCH_CPU_PROF_DIR, BENCH_METRICS_FILE.`,
  {},
);

// What it runs takes a second or more to load its imports: loaded after the command line, so that --help and a
// wrong option answer at once.
await import("./runIndexerBench.ts");
