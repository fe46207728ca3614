import { network } from "hardhat";
import type { Address, Hex } from "viem";
import { getAddress, parseEventLogs, parseUnits } from "viem";
import StackModule from "../../ignition/modules/Stack.ts";
import { fundBuyer as fundDevBuyer } from "../../services/stack/fundBuyer.ts";
import { serveRpc } from "./rpcServer.ts";

export { devKey } from "../../services/stack/devAccounts.ts";

/** Roles of the development accounts in tests. */
export const ROLE = {
  admin: 0,
  relayer: 1,
  facilitator: 2,
  treasury: 3,
  creator: 4,
  buyer: 5,
  other: 6,
  relayer2: 7,
  /** The marketplace operator: holds PUBLISHER_ROLE on the registry (submits `registerFor`). */
  publisher: 8,
} as const;

/**
 * An in-process EDR chain (chain id 5042002) with the whole stack deployed through Ignition, served over HTTP on
 * a port that can be stopped and resumed (to test an unreachable RPC).
 * @example const chain = await startLocalChain(); ...; await chain.close()
 */
export async function startLocalChain() {
  const connection = await network.create();
  const { viem, ignition } = connection;
  const wallets = await viem.getWalletClients();
  const address = (index: number) => getAddress(wallets[index]!.account.address);
  const { token, identity, registry, escrow } = await ignition.deploy(StackModule, {
    parameters: {
      $global: {
        admin: address(ROLE.admin),
        treasury: address(ROLE.treasury),
        relayer: address(ROLE.relayer),
        facilitator: address(ROLE.facilitator),
        publisher: address(ROLE.publisher),
      },
    },
  });
  const escrowAdmin = await viem.getContractAt("PaymentEscrow", escrow.address);
  await escrowAdmin.write.grantRole([await escrow.read.RELAYER_ROLE(), address(ROLE.relayer2)]);
  const rpc = await serveRpc(connection.provider);
  const publicClient = await viem.getPublicClient();

  /** Registers a resource for `creator` (minting its ERC-8004 identity) and returns its id. */
  async function registerResource({
    slug,
    cap = parseUnits("0.05", 6),
    base = 1_000n,
    perKB = 200n,
    creatorIndex = ROLE.creator,
    cardHash = `0x${"00".repeat(32)}`,
  }: {
    slug: string;
    cap?: bigint;
    base?: bigint;
    perKB?: bigint;
    creatorIndex?: number;
    /** The card hash registered (default zeros): a marketplace lists it only with a stored card of that hash. */
    cardHash?: Hex;
  }): Promise<Hex> {
    const account = wallets[creatorIndex]!.account;
    const hash = await identity.write.register([`https://example.test/${slug}.json`], { account });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    const [registered] = parseEventLogs({ abi: identity.abi, logs: receipt.logs, eventName: "Registered" });
    const agentId = registered!.args.agentId;
    await registry.write.register(
      [
        {
          slug,
          agentId,
          payout: account.address,
          category: "tools",
          pricing: { base, perKB, max: cap },
          cardURI: `https://example.test/${slug}/card`,
          cardHash,
        },
      ],
      { account },
    );
    return (await registry.read.resourceIdOf([account.address, slug])) as Hex;
  }

  /** Mints stablecoin to `buyerIndex` and deposits `deposit` of it into the escrow. */
  async function fundBuyer(buyerIndex: number, deposit: bigint): Promise<Address> {
    const buyer = wallets[buyerIndex]!;
    await fundDevBuyer({
      publicClient,
      minter: wallets[ROLE.admin]!,
      buyer,
      token: token.address,
      escrow: escrow.address,
      deposit,
    });
    return getAddress(buyer.account.address);
  }

  return {
    connection,
    viem,
    publicClient,
    wallets,
    address,
    rpc,
    rpcUrl: rpc.url,
    contracts: { token, identity, registry, escrow },
    addresses: { token: token.address, identity: identity.address, registry: registry.address, escrow: escrow.address },
    registerResource,
    fundBuyer,
    /** Sets the next block's base fee and mines it, so that the latest block carries `wei`. */
    async setBaseFee(wei: bigint): Promise<void> {
      await connection.provider.request({
        method: "hardhat_setNextBlockBaseFeePerGas",
        params: [`0x${wei.toString(16)}`],
      });
      await connection.provider.request({ method: "evm_mine", params: [] });
    },
    async close() {
      await rpc.close();
      await connection.close();
    },
  };
}

/** A started local chain. */
export type LocalChain = Awaited<ReturnType<typeof startLocalChain>>;
