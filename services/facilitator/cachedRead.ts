/**
 * A chain read answered from its last result for `ttlMs`: concurrent callers share one read, and a failed read is
 * forgotten at once, so the next caller reads again.
 * @example const policy = cachedRead(1_000, () => readPolicy()); await policy()
 */
export function cachedRead<T>(ttlMs: number, read: () => Promise<T>): () => Promise<T> {
  let cached: { at: number; value: Promise<T> } | null = null;
  return () => {
    if (!cached || Date.now() - cached.at >= ttlMs) {
      const value = read();
      const entry = { at: Date.now(), value };
      cached = entry;
      value.catch(() => {
        if (cached === entry) cached = null;
      });
    }
    return cached.value;
  };
}
