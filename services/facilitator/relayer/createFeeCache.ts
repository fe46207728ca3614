import type { PublicClient } from "viem";
import type { Fees } from "./sendTransaction.ts";

/**
 * The node's fee estimate, reused for `ttlMs` so a busy relayer does not ask for it per transaction; a failed
 * estimate is forgotten at once, so the next send asks again.
 * @example const fees = createFeeCache(publicClient, 1_000); await fees()
 */
export function createFeeCache(publicClient: PublicClient, ttlMs: number): () => Promise<Fees> {
  let cached: { at: number; fees: Promise<Fees> } | null = null;
  return () => {
    if (!cached || Date.now() - cached.at >= ttlMs) {
      const estimate = publicClient.estimateFeesPerGas();
      cached = { at: Date.now(), fees: estimate };
      estimate.catch(() => (cached = null));
    }
    return cached.fees;
  };
}
