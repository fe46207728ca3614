import type { Address, Hex, LocalAccount } from "viem";
import { createPublicClient, createWalletClient } from "viem";
import { redactedHttp } from "../http/rpcUrls.ts";
import { abiOf } from "../protocol/artifacts.ts";
import { serviceChain } from "../protocol/chain.ts";

/** Typed data as viem signs it. */
export type TypedDataToSign = Parameters<LocalAccount["signTypedData"]>[0];

/** The creator as the studio needs it: an address, its signatures, and its own undo of a registration. */
export type Creator = {
  address: Address;
  signTypedData(typedData: TypedDataToSign): Promise<Hex>;
  /** Sends the creator's own `deactivate(resourceId)` to the registry; undefined when the creator signs elsewhere. */
  deactivate?(resourceId: Hex): Promise<Hex>;
};

/**
 * A creator backed by a local key (the stack's development creator, or `CREATOR_KEY`): it signs the registration and
 * the bond, and can deactivate a resource it registered (the undo of a failed self-test).
 * @example const creator = localCreator(privateKeyToAccount(key), { rpcUrl, registry })
 */
export function localCreator(
  account: LocalAccount,
  { rpcUrl, registry }: { rpcUrl: string; registry: Address },
): Creator {
  const chain = serviceChain(rpcUrl);
  const wallet = createWalletClient({ account, chain, transport: redactedHttp(rpcUrl) });
  const client = createPublicClient({ chain, transport: redactedHttp(rpcUrl) });
  return {
    address: account.address,
    signTypedData: (typedData) => account.signTypedData(typedData),
    async deactivate(resourceId) {
      const hash = await wallet.writeContract({
        address: registry,
        abi: abiOf("ResourceRegistry"),
        functionName: "deactivate",
        args: [resourceId],
      });
      const receipt = await client.waitForTransactionReceipt({ hash });
      if (receipt.status !== "success") throw new Error(`deactivate(${resourceId}) reverted in ${hash}`);
      return hash;
    },
  };
}
