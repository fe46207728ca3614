import type { Address, Hex, PublicClient } from "viem";
import { createPublicClient, createWalletClient, getAddress, http, parseEventLogs } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DEFAULTS } from "../../../../ignition/modules/parts.ts";
import type { ContractName } from "../../../protocol/artifacts.ts";
import { abiOf, bytecodeOf } from "../../../protocol/artifacts.ts";
import { cardHashOf } from "../../../protocol/cardHash.ts";
import { serviceChain } from "../../../protocol/chain.ts";
import { deployFiatToken } from "../../../stack/deployFiatToken.ts";
import { fundBuyer } from "../../../stack/fundBuyer.ts";

/** The demo's contract addresses. */
export type DemoContracts = { token: Address; identity: Address; registry: Address; escrow: Address };

/** The ephemeral keys the demo runs with (held in memory only, never shown). */
export type DemoKeys = { admin: Hex; relayer: Hex; creator: Hex; buyer: Hex };

/**
 * The demo's chain runs in this process: a slow answer means a busy machine, not a lost request. Waiting for it
 * rather than timing out and sending again keeps every start's transactions, and so its addresses, the same.
 */
export const LOCAL_CHAIN = { timeout: 300_000, retryCount: 0 } as const;

function clients(rpcUrl: string, key: Hex) {
  const chain = serviceChain(rpcUrl);
  return {
    wallet: createWalletClient({ account: privateKeyToAccount(key), chain, transport: http(rpcUrl, LOCAL_CHAIN) }),
    publicClient: createPublicClient({ chain, transport: http(rpcUrl, LOCAL_CHAIN) }) as PublicClient,
  };
}

async function mined(publicClient: PublicClient, hash: Hex) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== "success") throw new Error(`demo transaction ${hash} reverted`);
  return receipt;
}

/**
 * Deploys the real contracts onto the demo chain: Circle's FiatToken as the USDC (`deployFiatToken`, the admin its
 * minter), then ours (the compiled bytecode from Hardhat's artifacts) with the same constructor settings as the
 * Ignition modules (their `DEFAULTS`), and grants the relayer its escrow and registry roles.
 * @example const contracts = await deployDemoContracts(rpcUrl, keys)
 */
export async function deployDemoContracts(rpcUrl: string, keys: DemoKeys): Promise<DemoContracts> {
  const { wallet, publicClient } = clients(rpcUrl, keys.admin);
  const admin = wallet.account.address;
  const relayer = privateKeyToAccount(keys.relayer).address;
  const deploy = async (name: ContractName, args: unknown[]) => {
    const hash = await wallet.deployContract({ abi: abiOf(name), bytecode: bytecodeOf(name), args } as never);
    const receipt = await mined(publicClient, hash);
    if (!receipt.contractAddress) throw new Error(`${name} was not deployed`);
    return getAddress(receipt.contractAddress);
  };
  const token = await deployFiatToken({ publicClient, wallet, minter: admin });
  const identity = await deploy("IdentityRegistry", []);
  const registry = await deploy("ResourceRegistry", [
    token,
    identity,
    admin,
    admin,
    DEFAULTS.strikeThreshold,
    DEFAULTS.slashBps,
    DEFAULTS.minBond,
    DEFAULTS.bondWithdrawalDelay,
    DEFAULTS.adminDelay,
  ]);
  const escrow = await deploy("PaymentEscrow", [token, registry, admin, DEFAULTS.feeBps, admin, DEFAULTS.adminDelay]);
  const grants = [
    [escrow, "RELAYER_ROLE"],
    [registry, "FACILITATOR_ROLE"],
  ] as const;
  for (const [address, role] of grants) {
    const abi = abiOf(address === escrow ? "PaymentEscrow" : "ResourceRegistry");
    const hash = await wallet.writeContract({
      address,
      abi: abiOf("PaymentEscrow"),
      functionName: "grantRole",
      args: [(await publicClient.readContract({ address, abi, functionName: role } as never)) as Hex, relayer],
    });
    await mined(publicClient, hash);
  }
  return { token, identity, registry, escrow };
}

/**
 * Registers a resource on the demo chain for the creator: mints its ERC-8004 identity, builds the card from the
 * resource id and agent id, then registers slug, pricing, the card URI and the card's hash (`cardHashOf`). Returns
 * the resource id, agent id and card.
 * @example const { resourceId, card } = await registerDemoResource(rpcUrl, keys.creator, contracts, { slug, category, pricing, cardUri, card: (ids) => finalizeCard(template, ids) })
 */
export async function registerDemoResource<C>(
  rpcUrl: string,
  creatorKey: Hex,
  contracts: DemoContracts,
  r: {
    slug: string;
    category: string;
    pricing: { base: bigint; perKB: bigint; max: bigint };
    cardUri: string;
    card: (ids: { resourceId: Hex; agentId: bigint }) => C;
  },
): Promise<{ resourceId: Hex; agentId: bigint; card: C }> {
  const { wallet, publicClient } = clients(rpcUrl, creatorKey);
  const minted = await mined(
    publicClient,
    await wallet.writeContract({
      address: contracts.identity,
      abi: abiOf("IdentityRegistry"),
      functionName: "register",
      args: [`${r.cardUri}#identity`],
    }),
  );
  const [registered] = parseEventLogs({ abi: abiOf("IdentityRegistry"), logs: minted.logs, eventName: "Registered" });
  if (!registered) throw new Error("the identity registry minted no agent");
  const agentId = registered.args.agentId;
  const resourceId = (await publicClient.readContract({
    address: contracts.registry,
    abi: abiOf("ResourceRegistry"),
    functionName: "resourceIdOf",
    args: [wallet.account.address, r.slug],
  })) as Hex;
  const card = r.card({ resourceId, agentId });
  await mined(
    publicClient,
    await wallet.writeContract({
      address: contracts.registry,
      abi: abiOf("ResourceRegistry"),
      functionName: "register",
      args: [
        {
          slug: r.slug,
          agentId,
          payout: wallet.account.address,
          category: r.category,
          pricing: r.pricing,
          cardURI: r.cardUri,
          cardHash: cardHashOf(card),
        },
      ],
    }),
  );
  return { resourceId, agentId, card };
}

/**
 * Mints demo stablecoin to the buyer and deposits it into the escrow from the buyer's own account.
 * @example await fundDemoBuyer(rpcUrl, keys, contracts, 10_000_000n)
 */
export async function fundDemoBuyer(rpcUrl: string, keys: DemoKeys, contracts: DemoContracts, amount: bigint) {
  const admin = clients(rpcUrl, keys.admin);
  await fundBuyer({
    publicClient: admin.publicClient,
    minter: admin.wallet,
    buyer: clients(rpcUrl, keys.buyer).wallet,
    token: contracts.token,
    escrow: contracts.escrow,
    deposit: amount,
  });
}
