import type { Address, PublicClient } from "viem";

/**
 * The block a contract was deployed in, for one bound by address (its events start there): the first block at whose
 * end it has code, by bisection over `eth_getCode` (a few dozen reads). Block 0 when the node keeps no old state.
 * @example const block = await findCreationBlock(client, escrow)
 */
export async function findCreationBlock(client: PublicClient, address: Address): Promise<bigint> {
  let high = await client.getBlockNumber({ cacheTime: 0 });
  let low = 0n;
  try {
    while (low < high) {
      const middle = (low + high) / 2n;
      const code = await client.getCode({ address, blockNumber: middle });
      if (code && code !== "0x") high = middle;
      else low = middle + 1n;
    }
  } catch {
    return 0n;
  }
  return low;
}
