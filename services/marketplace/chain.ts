import type { Address, Hex, PublicClient, TransactionReceipt } from "viem";
import {
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  http,
  parseEventLogs,
  BaseError as ViemBaseError,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { abiOf } from "../protocol/artifacts.ts";
import { serviceChain } from "../protocol/chain.ts";
import { BaseError } from "../protocol/errors.ts";
import { readBaseFeeWei } from "../protocol/readBaseFeeWei.ts";

/** Our contracts, as the marketplace is configured with them. */
export type MarketplaceAddresses = { token: Address; escrow: Address; registry: Address; identity: Address };

/** A transaction the chain refused (a revert, decoded when the ABI knows the error). */
export class TransactionRefusedError extends BaseError {
  override name = "TransactionRefusedError";
}

/**
 * The reason of a revert in a sentence: the custom error and its arguments when the ABI knows it.
 * @example revertReason(error) // "NotAgentOwner(4, 0xabc…, 0xdef…)"
 */
export function revertReason(error: unknown): string {
  if (error instanceof ViemBaseError) {
    const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
    if (revert instanceof ContractFunctionRevertedError) {
      const name = revert.data?.errorName ?? revert.reason ?? revert.signature ?? "reverted";
      const args = (revert.data?.args ?? []).map((a) => String(a)).join(", ");
      return `${name}(${args})`;
    }
    return error.shortMessage;
  }
  return (error as Error).message?.split("\n")[0] ?? String(error);
}

/**
 * The marketplace's view of the chain and its operator account: reads, and writes that are simulated first (so a
 * revert is reported with its custom error and costs nothing) and sent one at a time (one nonce lane).
 * @example const chain = createMarketplaceChain({ rpcUrl, operatorKey, addresses })
 */
export function createMarketplaceChain({
  rpcUrl,
  operatorKey,
  addresses,
}: {
  rpcUrl: string;
  operatorKey: Hex;
  addresses: MarketplaceAddresses;
}) {
  const chain = serviceChain(rpcUrl);
  const transport = http(rpcUrl, { retryCount: 1, timeout: 10_000 });
  const publicClient = createPublicClient({ chain, transport }) as PublicClient;
  const account = privateKeyToAccount(operatorKey);
  const wallet = createWalletClient({ account, chain, transport });
  const abis = {
    registry: abiOf("ResourceRegistry"),
    identity: abiOf("IdentityRegistry"),
    token: abiOf("IFiatToken"),
    escrow: abiOf("PaymentEscrow"),
  };
  const errorSignatures = new Set<string>();
  /** Every custom error of our contracts, so that a revert deep in a call (the token's, say) is decoded by name. */
  const knownErrors = [abis.registry, abis.identity, abis.token]
    .flatMap((abi) =>
      (abi as readonly { type: string; name?: string; inputs?: readonly { type: string }[] }[]).filter(
        (item) => item.type === "error",
      ),
    )
    .filter((item) => {
      const signature = `${item.name}(${(item.inputs ?? []).map((input) => input.type).join(",")})`;
      if (errorSignatures.has(signature)) return false;
      errorSignatures.add(signature);
      return true;
    });
  const withErrors = (abi: unknown) => [
    ...(abi as readonly { type: string }[]).filter((item) => item.type !== "error"),
    ...knownErrors,
  ];
  let lane: Promise<unknown> = Promise.resolve();

  const read = <T>(address: Address, abi: unknown, functionName: string, args: readonly unknown[] = []) =>
    publicClient.readContract({ address, abi, functionName, args } as never) as Promise<T>;

  /** Simulates, sends and waits for one transaction of the operator; refusals become TransactionRefusedError. */
  const write = (
    address: Address,
    abi: unknown,
    functionName: string,
    args: readonly unknown[],
  ): Promise<TransactionReceipt> => {
    const run = lane.then(async () => {
      let request: unknown;
      try {
        ({ request } = await publicClient.simulateContract({
          account,
          address,
          abi: withErrors(abi),
          functionName,
          args,
        } as never));
      } catch (error) {
        if (error instanceof ViemBaseError && error.walk((e) => e instanceof ContractFunctionRevertedError)) {
          throw new TransactionRefusedError(revertReason(error));
        }
        throw error;
      }
      const hash = await wallet.writeContract(request as never);
      const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: 60_000 });
      if (receipt.status !== "success") throw new TransactionRefusedError(`transaction ${hash} reverted`);
      return receipt;
    });
    lane = run.catch(() => {});
    return run;
  };

  return {
    publicClient,
    operator: account.address,
    addresses,
    abis,
    /** The registry's minimum bond (applies when above the marketplace's own). */
    minBond: () => read<bigint>(addresses.registry, abis.registry, "minBond"),
    /** The escrow's treasury fee, in basis points of each debit. */
    feeBps: () => read<number>(addresses.escrow, abis.escrow, "feeBps"),
    /** The latest block's base fee (wei); a chain without one (before EIP-1559) answers its gas price. */
    baseFeeWei(): Promise<bigint> {
      return readBaseFeeWei(publicClient);
    },
    /** Whether a resource id is registered. */
    async isRegistered(resourceId: Hex): Promise<boolean> {
      const [payout] = await read<[Address, boolean]>(addresses.registry, abis.registry, "paymentTarget", [resourceId]);
      return payout !== "0x0000000000000000000000000000000000000000";
    },
    /** The resource an agent is bound to (zero when none). */
    resourceOfAgent: (agentId: bigint) => read<Hex>(addresses.registry, abis.registry, "resourceOfAgent", [agentId]),
    /** The owner of an identity, or undefined when it does not exist. */
    ownerOf: (agentId: bigint) =>
      read<Address>(addresses.identity, abis.identity, "ownerOf", [agentId]).catch(() => undefined),
    tokenBalance: (owner: Address) => read<bigint>(addresses.token, abis.token, "balanceOf", [owner]),
    authorizationUsed: (authorizer: Address, nonce: Hex) =>
      read<boolean>(addresses.token, abis.token, "authorizationState", [authorizer, nonce]),
    /** Mints an identity to the operator with `agentURI`; returns its id and the transaction. */
    async mintIdentity(agentURI: string): Promise<{ agentId: bigint; transaction: Hex }> {
      const receipt = await write(addresses.identity, abis.identity, "register", [agentURI]);
      const [registered] = parseEventLogs({ abi: abis.identity, logs: receipt.logs, eventName: "Registered" });
      if (!registered) throw new TransactionRefusedError("register emitted no Registered event");
      return { agentId: registered.args.agentId, transaction: receipt.transactionHash };
    },
    /** Hands an identity the operator holds to `to`. */
    transferIdentity: (agentId: bigint, to: Address) =>
      write(addresses.identity, abis.identity, "safeTransferFrom", [account.address, to, agentId]),
    /** Submits `registerFor` (registration and bond in one transaction). */
    registerFor: (args: readonly unknown[]) => write(addresses.registry, abis.registry, "registerFor", args),
  };
}

/** The marketplace's chain access. */
export type MarketplaceChain = ReturnType<typeof createMarketplaceChain>;
