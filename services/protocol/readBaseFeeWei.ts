import type { PublicClient } from "viem";

/**
 * The chain's current base fee in wei: the latest block's, or the node's gas price on a chain without EIP-1559.
 * @example const baseFeeWei = await readBaseFeeWei(publicClient) // 20000000000n on the test network's floor
 */
export async function readBaseFeeWei(client: PublicClient): Promise<bigint> {
  const block = await client.getBlock({ blockTag: "latest" });
  return block.baseFeePerGas ?? (await client.getGasPrice());
}
