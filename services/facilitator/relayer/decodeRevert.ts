import type { Abi, Hex } from "viem";
import { decodeErrorResult } from "viem";
import { TransactionRevertedError } from "./sendTransaction.ts";

/**
 * The revert a node answered with, as a `TransactionRevertedError` naming the decoded custom error (or
 * `Error(string)`), or undefined when `error` is not a revert answer (an unreachable node, a refused nonce). A revert
 * is the chain's own answer about the transaction, from a simulation (`eth_call`) or from a node that executes a
 * transaction at send and refuses it: sending it again would revert again.
 * @example const reverted = decodeRevert(error, [escrowAbi]); if (reverted) throw reverted
 */
export function decodeRevert(error: unknown, abis: readonly Abi[]): TransactionRevertedError | undefined {
  const data = revertData(error);
  return data === undefined ? undefined : new TransactionRevertedError(decodeReason(data, abis, error), data);
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
