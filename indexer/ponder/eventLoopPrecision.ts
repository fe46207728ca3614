import { replaceOnce } from "./replaceOnce.ts";

/** How often (ms) Ponder's metrics sample the event loop's delay: prom-client's own default. */
export const EVENT_LOOP_SAMPLE_MS = 10;

/**
 * Ponder's default metrics (internal/metrics.js) sample the event loop's delay every millisecond
 * (`eventLoopMonitoringPrecision: 1`): a libuv timer that woke an idle Ponder about a thousand times a second, which
 * with the context switches it causes was a good part of the CPU the indexer spends between blocks
 * (docs/benchmarks.md, "Idle work and the relayer's receipts"). Every 10 ms still catches any stall worth reporting.
 * @example const patched = sampleEventLoopLess(source)
 */
export function sampleEventLoopLess(source: string): string {
  return replaceOnce(source, {
    patch: "eventLoopPrecision.ts",
    what: "default metrics' event-loop sampling",
    original: "eventLoopMonitoringPrecision: 1,",
    replacement: `eventLoopMonitoringPrecision: ${EVENT_LOOP_SAMPLE_MS},`,
  });
}
