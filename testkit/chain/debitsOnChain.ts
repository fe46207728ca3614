import type { Address, Hex, PublicClient } from "viem";
import { isAddressEqual } from "viem";
import { findDebits } from "../../services/protocol/findDebits.ts";
import type { ParsedDebit } from "../../services/protocol/parseDebits.ts";

/** What a test looks debits up by: any of buyer, nonce and resource. */
export type DebitFilter = { buyer?: Address; nonce?: Hex; resourceId?: Hex };

/**
 * Every debit the escrow logged from genesis to the latest block (its `BatchDebited` logs, decoded by the
 * protocol's findDebits), in order, narrowed to `filter`.
 * @example const [debit] = await debitsOnChain(chain, { buyer: buyer.address, nonce })
 */
export async function debitsOnChain(
  chain: { publicClient: PublicClient; addresses: { escrow: Address } },
  filter: DebitFilter = {},
): Promise<ParsedDebit[]> {
  const toBlock = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
  const debits = await findDebits(chain.publicClient, {
    escrow: chain.addresses.escrow,
    resourceId: filter.resourceId,
    fromBlock: 0n,
    toBlock,
  });
  return debits.filter(
    (d) =>
      (!filter.buyer || isAddressEqual(d.buyer, filter.buyer)) &&
      (!filter.nonce || d.nonce.toLowerCase() === filter.nonce.toLowerCase()),
  );
}
