import { readFileSync } from "node:fs";
import type { ArtifactMap } from "hardhat/types/artifacts";

/** Contracts whose ABIs the services use. */
export type ContractName = "PaymentEscrow" | "ResourceRegistry" | "IdentityRegistry" | "TestStablecoin";

const cache = new Map<ContractName, { abi: unknown; bytecode: `0x${string}` }>();

function artifactOf(name: ContractName) {
  let artifact = cache.get(name);
  if (!artifact) {
    const url = new URL(`../../artifacts/contracts/${name}.sol/${name}.json`, import.meta.url);
    let text: string;
    try {
      text = readFileSync(url, "utf8");
    } catch {
      throw new Error(`artifact of ${name} not found: run \`npm run compile\` first`);
    }
    const { abi, bytecode } = JSON.parse(text) as { abi: unknown; bytecode: `0x${string}` };
    artifact = { abi, bytecode };
    cache.set(name, artifact);
  }
  return artifact;
}

/**
 * The ABI of one of our contracts, read from Hardhat's build output (the single source of truth), fully typed.
 * @example const escrowAbi = abiOf('PaymentEscrow')
 */
export function abiOf<Name extends ContractName>(name: Name): ArtifactMap[Name]["abi"] {
  return artifactOf(name).abi as ArtifactMap[Name]["abi"];
}

/**
 * The creation bytecode of one of our contracts, from the same build output (the buyer's demo deploys it).
 * @example const hash = await wallet.deployContract({ abi: abiOf("TestStablecoin"), bytecode: bytecodeOf("TestStablecoin"), args: [admin] })
 */
export function bytecodeOf(name: ContractName): `0x${string}` {
  return artifactOf(name).bytecode;
}
