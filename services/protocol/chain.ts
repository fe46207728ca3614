import { defineChain } from "viem";
import { BLOCK_TIME_MS, CHAIN_ID } from "./constants.ts";

/**
 * The viem chain of the test network (and of the embedded local chain, which shares its id).
 * Gas is paid in the stablecoin there, which has 18 decimals as the native currency. Its block time sets viem's
 * polling (half a block, at least 500 ms): a receipt is seen within a block or so, not after viem's default 4 s.
 * @example createPublicClient({ chain: serviceChain(rpcUrl), transport: http(rpcUrl) })
 */
export function serviceChain(rpcUrl: string) {
  return defineChain({
    id: CHAIN_ID,
    name: "Service test network",
    nativeCurrency: { name: "USDC", symbol: "USDC", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    blockTime: BLOCK_TIME_MS,
  });
}

/**
 * Whether an error means the chain could not be reached (as opposed to a revert or a bug): a failed or timed-out
 * HTTP request anywhere in its cause chain.
 * @example if (isChainUnavailable(error)) answer503()
 */
export function isChainUnavailable(error: unknown): boolean {
  let current = error as { name?: string; code?: string; cause?: unknown } | undefined;
  while (current) {
    if (
      current.name === "HttpRequestError" ||
      current.name === "TimeoutError" ||
      current.name === "ChainUnavailableError"
    )
      return true;
    if (current.code === "ECONNREFUSED" || current.code === "ECONNRESET" || current.code === "UND_ERR_SOCKET")
      return true;
    current = current.cause as typeof current;
  }
  return false;
}
