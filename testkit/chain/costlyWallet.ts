import type { Address, LocalAccount } from "viem";
import { getAddress } from "viem";
import { toAccount } from "viem/accounts";
import type { LocalChain } from "./localChain.ts";
import { ROLE } from "./localChain.ts";

/**
 * Deploys a contract-wallet buyer (CostlyERC1271Wallet) whose ERC-1271 check burns `burn` gas, deposits `deposit`
 * for it in the escrow (minted to the admin), and returns an account that signs for the wallet with its owner's key.
 * @example const wallet = await deployCostlyWallet(chain, owner, 480_000n, 100_000n)
 */
export async function deployCostlyWallet(
  chain: LocalChain,
  owner: LocalAccount,
  burn: bigint,
  deposit: bigint,
): Promise<LocalAccount> {
  const wallet = await chain.viem.deployContract("CostlyERC1271Wallet", [owner.address, burn]);
  const { token, escrow } = chain.contracts;
  await token.write.mint([chain.address(ROLE.admin), deposit]);
  await token.write.approve([escrow.address, deposit]);
  await escrow.write.depositFor([wallet.address, deposit]);
  return toAccount({
    address: getAddress(wallet.address) as Address,
    signMessage: (m) => owner.signMessage(m),
    signTransaction: (t) => owner.signTransaction(t),
    signTypedData: (t) => owner.signTypedData(t),
  });
}
