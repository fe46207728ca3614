import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Address, Hex, PublicClient } from "viem";
import type { ContractName } from "../protocol/artifacts.ts";
import { buildInfoOf, contractArtifactOf } from "../protocol/artifacts.ts";
import { deploymentTransaction, recordFiles } from "./deploymentRecord.ts";

/** One contract as an explorer's verification form asks for it. */
export type VerificationEntry = {
  contract: ContractName;
  address: Address;
  /** The fully qualified name in the standard-JSON input (`project/contracts/PaymentEscrow.sol:PaymentEscrow`). */
  contractName: string;
  compilerVersion: string;
  /** ABI-encoded constructor arguments, from the deployment transaction. */
  constructorArguments: Hex;
  /** The standard-JSON input file beside this one. */
  input: string;
};

/**
 * Writes what an explorer needs to verify each contract this record deployed (one bound by address is not ours to
 * verify): the compiler's standard-JSON input, from Hardhat's build info, as `verification/<build id>.input.json`,
 * and `verification/contracts.json` with each contract's address, fully qualified name, compiler version and
 * constructor arguments.
 * @example await writeVerificationInput(dir, client, [{ contract: "PaymentEscrow", address, futureId }])
 */
export async function writeVerificationInput(
  dir: string,
  client: PublicClient,
  deployed: { contract: ContractName; address: Address; futureId: string }[],
): Promise<VerificationEntry[]> {
  const folder = recordFiles(dir).verification;
  mkdirSync(folder, { recursive: true });
  const entries: VerificationEntry[] = [];
  for (const { contract, address, futureId } of deployed) {
    const transaction = deploymentTransaction(dir, futureId);
    if (!transaction) continue;
    const artifact = contractArtifactOf(contract);
    const buildInfo = buildInfoOf(contract);
    const input = `${artifact.buildInfoId}.input.json`;
    writeFileSync(join(folder, input), JSON.stringify(buildInfo.input));
    const { input: data } = await client.getTransaction({ hash: transaction.hash });
    const args = data.toLowerCase().startsWith(artifact.bytecode.toLowerCase())
      ? (`0x${data.slice(artifact.bytecode.length)}` as Hex)
      : "0x";
    entries.push({
      contract,
      address,
      contractName: `${artifact.inputSourceName}:${contract}`,
      compilerVersion: `v${buildInfo.solcLongVersion}`,
      constructorArguments: args,
      input,
    });
  }
  writeFileSync(join(folder, "contracts.json"), `${JSON.stringify(entries, null, 2)}\n`);
  return entries;
}
