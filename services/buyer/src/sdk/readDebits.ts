import type { Address, Hex } from "viem";
import { isAddressEqual } from "viem";
import { defined } from "../../../protocol/defined.ts";
import { findDebits } from "../../../protocol/findDebits.ts";
import type { BuyerChain } from "./buyerChain.ts";

/** One debit as the trusted escrow's `BatchDebited` log proves it: the chain's amount, block and block time. */
export type ChainDebit = {
  resourceId: Hex;
  idemKey: Hex;
  amount: bigint;
  treasuryAmount: bigint;
  blockNumber: bigint;
  /** Unix milliseconds of the block the debit was mined in. */
  at: number;
  transaction: Hex;
};

export type ReadDebitsParameters = {
  buyer: Address;
  fromBlock: bigint;
  toBlock: bigint;
  /** The largest block range asked of the RPC at once (public RPCs cap `eth_getLogs`); default 5,000. */
  chunkBlocks?: bigint;
};

/**
 * Reads the debits of one buyer in the trusted escrow's `BatchDebited` logs between two blocks (inclusive), in
 * chunks (the buyer is packed in the log, not a topic, so each chunk's logs are read whole and filtered), each dated by its block's timestamp (the log's `blockTimestamp` when the RPC gives it, else the block header).
 * @example const debits = await readDebits(chain, { buyer, fromBlock: 0n, toBlock: latest })
 */
export async function readDebits(chain: BuyerChain, p: ReadDebitsParameters): Promise<ChainDebit[]> {
  const chunk = p.chunkBlocks ?? 5_000n;
  const times = new Map<bigint, Promise<number>>();
  const timeOf = (blockNumber: bigint, given: bigint | undefined) => {
    if (given !== undefined) return Promise.resolve(Number(given) * 1000);
    let time = times.get(blockNumber);
    if (!time) {
      time = chain.publicClient.getBlock({ blockNumber }).then((block) => Number(block.timestamp) * 1000);
      times.set(blockNumber, time);
    }
    return time;
  };
  const debits: ChainDebit[] = [];
  for (let from = p.fromBlock; from <= p.toBlock; from += chunk) {
    const to = from + chunk - 1n < p.toBlock ? from + chunk - 1n : p.toBlock;
    const found = await findDebits(chain.publicClient, { escrow: chain.escrow, fromBlock: from, toBlock: to });
    for (const debit of found) {
      if (!isAddressEqual(debit.buyer, p.buyer)) continue;
      const blockNumber = defined(debit.blockNumber, "a mined log's block");
      debits.push({
        resourceId: debit.resourceId,
        idemKey: debit.nonce.toLowerCase() as Hex,
        amount: debit.amount,
        treasuryAmount: debit.treasuryAmount,
        blockNumber,
        at: await timeOf(blockNumber, debit.blockTimestamp ?? undefined),
        transaction: defined(debit.transactionHash, "a mined log's transaction"),
      });
    }
  }
  return debits;
}
