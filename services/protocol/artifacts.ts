import { readFileSync } from "node:fs";
import type { ArtifactMap } from "hardhat/types/artifacts";

/** Contracts whose ABIs the services use. */
export type ContractName = "PaymentEscrow" | "ResourceRegistry" | "IdentityRegistry" | "TestStablecoin";

const cache = new Map<ContractName, unknown>();

/**
 * The ABI of one of our contracts, read from Hardhat's build output (the single source of truth), fully typed.
 * @example const escrowAbi = abiOf('PaymentEscrow')
 */
export function abiOf<Name extends ContractName>(name: Name): ArtifactMap[Name]["abi"] {
  if (!cache.has(name)) {
    const url = new URL(`../../artifacts/contracts/${name}.sol/${name}.json`, import.meta.url);
    let text: string;
    try {
      text = readFileSync(url, "utf8");
    } catch {
      throw new Error(`artifact of ${name} not found: run \`npm run compile\` first`);
    }
    cache.set(name, (JSON.parse(text) as { abi: unknown }).abi);
  }
  return cache.get(name) as ArtifactMap[Name]["abi"];
}
