import type { Abi, Address, Hex, PublicClient } from "viem";
import { isChainUnavailable } from "../../protocol/chain.ts";
import { decodeRevert } from "./decodeRevert.ts";
import { ChainUnavailableError } from "./sendTransaction.ts";

export type SimulateTransactionParameters = {
  publicClient: PublicClient;
  from: Address;
  to: Address;
  data: Hex;
  gas: bigint;
  /** ABIs whose custom errors the revert may carry (the escrow's, the registry's); `Error(string)` decodes always. */
  abis: readonly Abi[];
};

/**
 * Runs a transaction as an `eth_call` against the latest block, to tell a deterministic refusal from an unreachable
 * chain before anything is sent: resolves when it would succeed, throws `TransactionRevertedError` (with the decoded
 * custom error) when the chain answers with a revert, and `ChainUnavailableError` when it does not answer.
 * @example await simulateTransaction({ publicClient, from, to: escrow, data, gas: 250_000n, abis: [escrowAbi] })
 */
export async function simulateTransaction(p: SimulateTransactionParameters): Promise<void> {
  try {
    await p.publicClient.call({ account: p.from, to: p.to, data: p.data, gas: p.gas });
  } catch (error) {
    if (isChainUnavailable(error)) throw new ChainUnavailableError((error as Error).message.split("\n")[0]);
    throw decodeRevert(error, p.abis) ?? new ChainUnavailableError((error as Error).message.split("\n")[0]);
  }
}
