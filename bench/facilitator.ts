import { parseCommandLine } from "../services/stack/parseCommandLine.ts";

parseCommandLine(
  `usage: npm run bench:facilitator

Signature verification on one core, POST /verify throughput and settle throughput on the local chain; writes the
"Facilitator" section of docs/benchmarks.md. Environment: BENCH_SIGNATURES (3000), BENCH_VERIFIES (4000),
BENCH_CONCURRENCY (128), BENCH_DATABASE_URL (the tests' PostgreSQL: TEST_DATABASE_URL, else 127.0.0.1:5432, else one started for the run).`,
  {},
);

// What it runs takes a second or more to load its imports: loaded after the command line, so that --help and a
// wrong option answer at once.
await import("./runFacilitatorBench.ts");
