/**
 * Resolves after `ms` milliseconds: the one pause of tests, test harnesses and benchmarks.
 * @example await sleep(250)
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
