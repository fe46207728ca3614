import type { PublicClient } from "viem";
import { createPublicClient, http } from "viem";
import { serviceChain } from "../protocol/chain.ts";
import { CHAIN_ID } from "../protocol/constants.ts";
import { DeployError } from "./deployError.ts";

/**
 * A client of the chain at `rpcUrl`, once it has answered and named chain 5042002 (the only chain the system runs on).
 * @throws {DeployError} when the RPC cannot be reached or serves another chain.
 * @example const client = await connectChain(rpcUrl)
 */
export async function connectChain(rpcUrl: string): Promise<PublicClient> {
  const client = createPublicClient({
    chain: serviceChain(rpcUrl),
    transport: http(rpcUrl, { retryCount: 1, timeout: 15_000 }),
  }) as PublicClient;
  let chainId: number;
  try {
    chainId = await client.getChainId();
  } catch (error) {
    const cause = (error as { shortMessage?: string; details?: string }).details ?? (error as Error).message;
    throw new DeployError(`cannot reach the RPC at ${new URL(rpcUrl).origin} (${cause.split("\n")[0]})`);
  }
  if (chainId !== CHAIN_ID)
    throw new DeployError(`the RPC at ${new URL(rpcUrl).origin} serves chain ${chainId}, not ${CHAIN_ID}`);
  return client;
}
