import type { Address, Hex, PublicClient } from "viem";
import type { ParsedDebit } from "./parseDebits.ts";
import { batchDebitedEvent, parseDebits } from "./parseDebits.ts";

/** Where to look for debits: the escrow, a block range and, optionally, one resource (the log's only topic). */
export type FindDebitsParameters = {
  escrow: Address;
  fromBlock: bigint;
  toBlock: bigint;
  resourceId?: Hex | undefined;
};

/**
 * Every debit the escrow's `BatchDebited` logs carry in a block range (one `eth_getLogs`, filtered by resource when
 * given), decoded by parseDebits. A buyer or nonce is not a topic of the packed log: filter the result for them.
 * @example (await findDebits(client, { escrow, fromBlock, toBlock })).filter((d) => d.nonce === nonce)
 */
export async function findDebits(client: PublicClient, p: FindDebitsParameters): Promise<ParsedDebit[]> {
  const logs = await client.getLogs({
    address: p.escrow,
    event: batchDebitedEvent,
    ...(p.resourceId ? { args: { resourceId: p.resourceId } } : {}),
    fromBlock: p.fromBlock,
    toBlock: p.toBlock,
  });
  return parseDebits(logs, p.escrow);
}
