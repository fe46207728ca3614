import { createPublicClient, createWalletClient, http, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { serviceChain } from "../../protocol/chain.ts";
import { DEV_ROLE, devKey } from "../devAccounts.ts";
import { fundBuyer } from "../fundBuyer.ts";
import type { StackRun } from "../stackRun.ts";
import { contractsOf } from "../stackRun.ts";

/**
 * On the embedded chain: mints local USDC to three development buyers and deposits part of it in the escrow.
 * @example await fundDemoBuyers(run)
 */
export async function fundDemoBuyers(run: StackRun): Promise<void> {
  if (run.external) return;
  const { token, escrow } = contractsOf(run);
  const chain = serviceChain(run.urls.rpc);
  const transport = http(run.urls.rpc);
  const publicClient = createPublicClient({ chain, transport });
  const minter = createWalletClient({ account: privateKeyToAccount(devKey(DEV_ROLE.admin)), chain, transport });
  for (let i = 0; i < 3; i++) {
    const privateKey = devKey(DEV_ROLE.buyer + i);
    const buyer = createWalletClient({ account: privateKeyToAccount(privateKey), chain, transport });
    const address = await fundBuyer({
      publicClient,
      minter,
      buyer,
      token,
      escrow,
      mint: parseUnits("1000", 6),
      deposit: parseUnits("100", 6),
    });
    run.buyers.push({ address, privateKey, label: "local development key: never use on another chain" });
  }
  run.say(`funded ${run.buyers.length} demo buyers (development keys, local chain only)`);
}
