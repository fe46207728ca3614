/**
 * Percentile of a list of numbers by nearest rank; NaN for an empty list.
 * @example percentile([5, 1, 3], 50) // 3
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}
