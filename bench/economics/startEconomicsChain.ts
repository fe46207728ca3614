import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import { createPublicClient, createWalletClient, http, parseEther, parseEventLogs } from "viem";
import { privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { startEdrChain } from "../../services/chain/startEdrChain.ts";
import { abiOf } from "../../services/protocol/artifacts.ts";
import { CHAIN_ID } from "../../services/protocol/constants.ts";
import type { ContractAddresses } from "../../services/stack/deployContracts.ts";
import { deployLocalContracts } from "../../services/stack/deployContracts.ts";
import { DEV_ROLE, devKey } from "../../services/stack/devAccounts.ts";

/** A listing's registered terms (token base units). */
export type ListingTerms = { base: bigint; perKB: bigint; max: bigint };

/**
 * The embedded chain of `npm start` (services/chain/startEdrChain.ts: EDR, chain id 5042002, a base fee that never
 * leaves the value it is set to) in this process, with the stack's contracts deployed through the same Ignition module
 * and the same development roles as `npm start`, and what the economics bench does on it: pin the base fee, register
 * listings, fund buyers, and move the chain's clock.
 * @example const chain = await startEconomicsChain(); await chain.pinBaseFee(parseGwei("40")); ...; await chain.close()
 */
export async function startEconomicsChain() {
  const edr = await startEdrChain({
    funded: Array.from({ length: 20 }, (_, i) => ({ key: devKey(i), balance: parseEther("10000") })),
    unlocked: true,
    mining: "auto",
  });
  const deploymentDir = mkdtempSync(join(tmpdir(), "economics-"));
  const roles = {
    admin: privateKeyToAddress(devKey(DEV_ROLE.admin)),
    treasury: privateKeyToAddress(devKey(DEV_ROLE.treasury)),
    relayer: privateKeyToAddress(devKey(DEV_ROLE.relayer)),
    facilitator: privateKeyToAddress(devKey(DEV_ROLE.facilitator)),
    publisher: privateKeyToAddress(devKey(DEV_ROLE.publisher)),
  };
  let addresses: ContractAddresses;
  try {
    addresses = await deployLocalContracts({ rpcUrl: edr.rpcUrl, deploymentDir, roles });
  } catch (error) {
    await edr.close();
    rmSync(deploymentDir, { recursive: true, force: true });
    throw error;
  }
  const chain = {
    id: CHAIN_ID,
    name: "local",
    nativeCurrency: { name: "USDC", symbol: "USDC", decimals: 18 },
    rpcUrls: { default: { http: [edr.rpcUrl] } },
  } as const;
  const transport = http(edr.rpcUrl);
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 20 });
  const wallet = (key: Hex) => createWalletClient({ chain, transport, account: privateKeyToAccount(key) });
  const admin = wallet(devKey(DEV_ROLE.admin));
  const creator = wallet(devKey(DEV_ROLE.creator));
  const mined = async (hash: Hex) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 10 });
    if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };
  const token = { address: addresses.token, abi: abiOf("IFiatToken") } as const;
  const escrow = { address: addresses.escrow, abi: abiOf("PaymentEscrow") } as const;

  return {
    rpcUrl: edr.rpcUrl,
    addresses,
    publicClient,

    /** The escrow's treasury fee, in basis points. */
    feeBps: async () => Number(await publicClient.readContract({ ...escrow, functionName: "feeBps" })),

    /**
     * Sets the base fee of the next block and mines it: the embedded chain keeps it from then on (a block below its
     * gas target lowers it by nothing, one above raises it by 1 wei).
     */
    async pinBaseFee(wei: bigint): Promise<void> {
      await edr.request("hardhat_setNextBlockBaseFeePerGas", [`0x${wei.toString(16)}`]);
      await edr.request("evm_mine", []);
    },

    /** The base fee of every block from `from` to the head, as [lowest, highest]. */
    async baseFeeRange(from: bigint): Promise<{ blocks: number; lowest: bigint; highest: bigint }> {
      const head = await publicClient.getBlockNumber();
      let lowest: bigint | undefined;
      let highest = 0n;
      for (let n = from; n <= head; n++) {
        const fee = (await publicClient.getBlock({ blockNumber: n })).baseFeePerGas ?? 0n;
        if (lowest === undefined || fee < lowest) lowest = fee;
        if (fee > highest) highest = fee;
      }
      return { blocks: Number(head - from + 1n), lowest: lowest ?? 0n, highest };
    },

    /** The next block is dated `seconds` (Unix) when that is later than the latest block; later blocks follow on. */
    async moveClockTo(seconds: number): Promise<void> {
      const latest = await publicClient.getBlock();
      if (BigInt(seconds) > latest.timestamp) await edr.request("evm_setNextBlockTimestamp", [seconds]);
    },

    /** The latest block's timestamp (Unix seconds). */
    now: async () => Number((await publicClient.getBlock()).timestamp),

    /** Registers a listing of the creator (a new ERC-8004 identity each) and returns its resource id. */
    async registerListing(slug: string, pricing: ListingTerms): Promise<Hex> {
      const identity = { address: addresses.identity, abi: abiOf("IdentityRegistry") } as const;
      const receipt = await mined(
        await creator.writeContract({
          ...identity,
          functionName: "register",
          args: [`https://example.test/${slug}.json`],
        }),
      );
      const [registered] = parseEventLogs({ abi: identity.abi, logs: receipt.logs, eventName: "Registered" });
      if (!registered) throw new Error(`registering ${slug}: no Registered event`);
      const registry = { address: addresses.registry, abi: abiOf("ResourceRegistry") } as const;
      await mined(
        await creator.writeContract({
          ...registry,
          functionName: "register",
          args: [
            {
              slug,
              agentId: registered.args.agentId,
              payout: creator.account.address,
              category: "tools",
              pricing,
              cardURI: `https://example.test/${slug}/card`,
              cardHash: `0x${"00".repeat(32)}`,
            },
          ],
        }),
      );
      return (await publicClient.readContract({
        ...registry,
        functionName: "resourceIdOf",
        args: [creator.account.address, slug],
      })) as Hex;
    },

    /** Mints `each` to the admin and deposits it into the escrow for every buyer (`depositFor`). */
    async depositFor(buyers: readonly Address[], each: bigint): Promise<void> {
      const total = each * BigInt(buyers.length);
      await mined(await admin.writeContract({ ...token, functionName: "mint", args: [admin.account.address, total] }));
      await mined(await admin.writeContract({ ...token, functionName: "approve", args: [escrow.address, total] }));
      for (const buyer of buyers)
        await mined(await admin.writeContract({ ...escrow, functionName: "depositFor", args: [buyer, each] }));
    },

    /** Mints `each` of the stablecoin to every buyer's wallet (what an `exact` payment spends). */
    async mintTo(buyers: readonly Address[], each: bigint): Promise<void> {
      for (const buyer of buyers)
        await mined(await admin.writeContract({ ...token, functionName: "mint", args: [buyer, each] }));
    },

    async close(): Promise<void> {
      await edr.close();
      rmSync(deploymentDir, { recursive: true, force: true });
    },
  };
}

/** A started economics chain. */
export type EconomicsChain = Awaited<ReturnType<typeof startEconomicsChain>>;
