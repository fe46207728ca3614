import type { Abi, Address, Hex, PublicClient } from "viem";
import { decodeErrorResult } from "viem";
import { isChainUnavailable } from "../../protocol/chain.ts";
import { ChainUnavailableError, TransactionRevertedError } from "./sendTransaction.ts";

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
    const data = revertData(error);
    if (data === undefined) throw new ChainUnavailableError((error as Error).message.split("\n")[0]);
    throw new TransactionRevertedError(decodeReason(data, p.abis, error), data);
  }
}

/** The revert data an RPC answered with, or undefined when the error is not a revert answer. */
function revertData(error: unknown): Hex | undefined {
  let current = error as { name?: string; code?: number; data?: unknown; cause?: unknown } | undefined;
  let reverted = false;
  while (current) {
    if (current.name === "ExecutionRevertedError" || current.code === 3) reverted = true;
    const data =
      typeof current.data === "object" && current.data !== null
        ? (current.data as { data?: unknown }).data
        : current.data;
    if (typeof data === "string" && /^0x([0-9a-fA-F]{2})*$/.test(data)) return data as Hex;
    current = current.cause as typeof current;
  }
  return reverted ? "0x" : undefined;
}

function decodeReason(data: Hex, abis: readonly Abi[], error: unknown): string {
  for (const abi of abis) {
    try {
      const decoded = decodeErrorResult({ abi, data });
      return `${decoded.errorName}(${(decoded.args ?? []).map(String).join(", ")})`;
    } catch {}
  }
  if (data === "0x") return `reverted without data (${(error as Error).message.split("\n")[0]?.slice(0, 200)})`;
  return `reverted with ${data.slice(0, 10)}`;
}
