import type { Address, Hex, PublicClient } from "viem";
import { encodeFunctionData, getAddress, parseTransaction, recoverTransactionAddress } from "viem";
import { abiOf } from "../../protocol/artifacts.ts";
import { CHAIN_ID } from "../../protocol/constants.ts";

/** Gas the registry's `deactivate` is given (it uses about 35,000). */
const DEACTIVATE_GAS = 120_000n;

/**
 * The unsigned EIP-1559 transaction by which the creator deactivates its resource: the studio sends it, already
 * signed by the creator, only if the self-test fails, so a failure never leaves a registered, active resource behind
 * although the server holds no creator key. Numbers are decimal strings; `nonce` is the creator's next nonce.
 * @example const unsigned = await deactivationTransaction(client, { creator, registry, resourceId })
 */
export async function deactivationTransaction(
  client: PublicClient,
  p: { creator: Address; registry: Address; resourceId: Hex },
) {
  const [nonce, fees] = await Promise.all([
    client.getTransactionCount({ address: p.creator, blockTag: "pending" }),
    client.estimateFeesPerGas(),
  ]);
  return {
    type: "eip1559" as const,
    chainId: CHAIN_ID,
    to: p.registry,
    data: encodeFunctionData({ abi: abiOf("ResourceRegistry"), functionName: "deactivate", args: [p.resourceId] }),
    nonce,
    gas: DEACTIVATE_GAS.toString(),
    maxFeePerGas: (fees.maxFeePerGas * 3n).toString(),
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
  };
}

/**
 * Why a signed deactivation does not do what it must (sent by the creator, to the registry, on this chain, calling
 * exactly `deactivate(resourceId)`), or undefined when it does.
 * @example const problem = await checkDeactivation(raw, { creator, registry, resourceId })
 */
export async function checkDeactivation(
  raw: Hex,
  p: { creator: Address; registry: Address; resourceId: Hex },
): Promise<string | undefined> {
  let parsed: ReturnType<typeof parseTransaction>;
  let from: Address;
  try {
    parsed = parseTransaction(raw);
    from = await recoverTransactionAddress({
      serializedTransaction: raw as Parameters<typeof recoverTransactionAddress>[0]["serializedTransaction"],
    });
  } catch {
    return "the deactivation is not a signed transaction";
  }
  const data = encodeFunctionData({ abi: abiOf("ResourceRegistry"), functionName: "deactivate", args: [p.resourceId] });
  if (getAddress(from) !== getAddress(p.creator)) return "the deactivation is not signed by the creator";
  if (!parsed.to || getAddress(parsed.to) !== getAddress(p.registry))
    return "the deactivation is not sent to the registry";
  if (parsed.chainId !== CHAIN_ID) return "the deactivation is for another chain";
  if (parsed.data !== data) return "the deactivation does not call deactivate(resourceId)";
  return undefined;
}
