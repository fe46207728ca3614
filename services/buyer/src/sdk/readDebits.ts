import type { Address, Hex } from "viem";
import { abiOf } from "../../../protocol/artifacts.ts";
import type { BuyerChain } from "./buyerChain.ts";

/** One debit as the trusted escrow's `Debited` log proves it: the chain's amount, block and block time. */
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

const escrowAbi = abiOf("PaymentEscrow");

/**
 * Reads the trusted escrow's `Debited` logs of one buyer between two blocks (inclusive), in chunks,
 * each dated by its block's timestamp (the log's `blockTimestamp` when the RPC gives it, else the block header).
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
    const logs = await chain.publicClient.getContractEvents({
      address: chain.escrow,
      abi: escrowAbi,
      eventName: "Debited",
      args: { buyer: p.buyer },
      fromBlock: from,
      toBlock: to,
      strict: true,
    });
    for (const log of logs) {
      const given = (log as { blockTimestamp?: bigint | null }).blockTimestamp ?? undefined;
      debits.push({
        resourceId: log.args.resourceId,
        idemKey: log.args.nonce.toLowerCase() as Hex,
        amount: log.args.amount,
        treasuryAmount: log.args.treasuryAmount,
        blockNumber: log.blockNumber,
        at: await timeOf(log.blockNumber, given === undefined ? undefined : BigInt(given)),
        transaction: log.transactionHash,
      });
    }
  }
  return debits;
}
