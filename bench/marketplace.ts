import { parseCommandLine } from "../services/stack/parseCommandLine.ts";

/**
 * `npm run bench:discovery`: GET /resources latency over 10k and 100k synthetic resources, with and without filters
 * and text queries (the HTTP server runs in a child process; requests go one at a time, so a figure is one request's
 * latency); then the time from a registration's block to its appearance in GET /resources, through the real chain,
 * Ponder (PGlite) and the marketplace's catalog sync. Writes the "discovery" section of docs/benchmarks.md.
 */
const { values } = parseCommandLine(
  `usage: npm run bench:discovery

GET /resources latency over synthetic catalogs, then the time from a registration's block to its listing; writes the
"discovery" section of docs/benchmarks.md. Environment: BENCH_SIZES (10000,100000), BENCH_REQUESTS (300),
BENCH_REGISTRATIONS (40), BENCH_POLLING_MS (250,1000). (--serve <size> is the bench's own child process.)`,
  { options: { serve: { type: "string" } } },
);

// What it runs (the chain, Ponder, the marketplace) takes two seconds or more to load its imports: loaded after the
// command line, so that --help and a wrong option answer at once.
const { runDiscoveryBench } = await import("./runDiscoveryBench.ts");
await runDiscoveryBench(values.serve === undefined ? undefined : Number(values.serve));
