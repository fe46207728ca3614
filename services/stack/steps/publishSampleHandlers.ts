import type { Address } from "viem";
import { createPublicClient, createWalletClient, http, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { abiOf } from "../../protocol/artifacts.ts";
import { serviceChain } from "../../protocol/chain.ts";
import { DEV_ROLE, devKey } from "../devAccounts.ts";
import { publishSamples } from "../publishSamples.ts";
import type { StackRun } from "../stackRun.ts";
import { contractsOf } from "../stackRun.ts";

/**
 * On the embedded chain: funds the development creator's bonds and publishes every sample handler through the
 * marketplace's real pipeline with the creator's own signatures.
 * @example await publishSampleHandlers(run)
 */
export async function publishSampleHandlers(run: StackRun): Promise<void> {
  if (run.external) return;
  const contracts = contractsOf(run);
  const creator = privateKeyToAccount(devKey(DEV_ROLE.creator));
  await mint(run.urls.rpc, contracts.token, creator.address, parseUnits("100", 6));
  run.say("publishing the sample handlers through the pipeline (moderation, price, bond, probe, mint, index)");
  run.resources = await publishSamples({
    creator,
    hostUrl: run.urls.host,
    hostToken: run.tokens.host,
    marketplaceUrl: run.urls.marketplace,
    publishToken: run.tokens.publish,
    contracts,
    bond: parseUnits("1", 6),
    say: run.say,
  });
}

/** Mints local USDC to `to` (local chain: the deployer is a FiatToken minter). */
async function mint(rpcUrl: string, token: Address, to: Address, amount: bigint) {
  const chain = serviceChain(rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });
  const admin = createWalletClient({
    account: privateKeyToAccount(devKey(DEV_ROLE.admin)),
    chain,
    transport: http(rpcUrl),
  });
  await publicClient.waitForTransactionReceipt({
    hash: await admin.writeContract({
      address: token,
      abi: abiOf("IFiatToken"),
      functionName: "mint",
      args: [to, amount],
    }),
  });
}
