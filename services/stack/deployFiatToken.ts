import type { Account, Address, Chain, Hex, PublicClient, Transport, WalletClient } from "viem";
import { getAddress } from "viem";
import { fiatTokenSetup } from "../../ignition/modules/fiatTokenSetup.ts";
import type { DeployableArtifact } from "../protocol/artifacts.ts";
import { circleArtifactOf } from "../protocol/artifacts.ts";

export type DeployFiatTokenParameters = {
  publicClient: PublicClient;
  /** Deploys and sets up the token; becomes its owner, master minter, pauser and blacklister. */
  wallet: WalletClient<Transport, Chain, Account>;
  /** May mint without limit; the deployer when unset. */
  minter?: Address;
};

/** `artifact`'s creation bytecode with each library placeholder replaced by that library's address. */
function linked(artifact: DeployableArtifact, libraries: Record<string, Address>): Hex {
  let code = artifact.bytecode.slice(2);
  for (const [source, byName] of Object.entries(artifact.linkReferences)) {
    for (const [name, references] of Object.entries(byName)) {
      const address = libraries[name];
      if (!address) throw new Error(`${artifact.contractName} links ${source}:${name}, which was not deployed`);
      for (const { start, length } of references) {
        code = code.slice(0, start * 2) + address.slice(2).toLowerCase() + code.slice((start + length) * 2);
      }
    }
  }
  return `0x${code}`;
}

/**
 * Deploys the local USDC with a wallet (where Ignition does not run: the buyer's demo, a bare EDR chain): Circle's
 * SignatureChecker library, FiatTokenV2_2 linked to it, then the `fiatTokenSetup` calls the Ignition module
 * `FiatToken` makes, each mined before the next is sent.
 * @example const token = await deployFiatToken({ publicClient, wallet: admin, minter: admin.account.address })
 */
export async function deployFiatToken(p: DeployFiatTokenParameters): Promise<Address> {
  const mined = async (hash: Hex, what: string) => {
    const receipt = await p.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== "success") throw new Error(`deploying the local USDC: ${what} reverted (${hash})`);
    return receipt;
  };
  const deploy = async (artifact: DeployableArtifact, libraries: Record<string, Address>) => {
    const hash = await p.wallet.deployContract({ abi: artifact.abi, bytecode: linked(artifact, libraries) });
    const { contractAddress } = await mined(hash, `deploying ${artifact.contractName}`);
    if (!contractAddress) throw new Error(`deploying the local USDC: ${artifact.contractName} has no address`);
    return getAddress(contractAddress);
  };
  const signatureChecker = await deploy(circleArtifactOf("SignatureChecker"), {});
  const artifact = circleArtifactOf("FiatTokenV2_2");
  const token = await deploy(artifact, { SignatureChecker: signatureChecker });
  const deployer = p.wallet.account.address;
  for (const step of fiatTokenSetup(deployer, p.minter ?? deployer)) {
    const hash = await p.wallet.writeContract({
      address: token,
      abi: artifact.abi,
      functionName: step.functionName,
      args: [...step.args],
    });
    await mined(hash, step.functionName);
  }
  return token;
}
