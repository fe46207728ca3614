import { HardhatArtifactResolver } from "@nomicfoundation/hardhat-ignition/helpers";
import type {
  DeploymentParameters,
  ExecutionEventListener,
  IgnitionModule,
  IgnitionModuleResult,
} from "@nomicfoundation/ignition-core";
import { DeploymentResultType, deploy } from "@nomicfoundation/ignition-core";
import hre, { network } from "hardhat";
import type { Address, Hex } from "viem";
import { getAddress } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { DeployError } from "./deployError.ts";
import { readJournal } from "./deploymentRecord.ts";

export type RunIgnitionParameters<Results extends IgnitionModuleResult<string>> = {
  rpcUrl: string;
  /** Who sends the transactions; the node's first unlocked account when absent (the embedded chain). */
  deployerKey?: Hex;
  /** Where Ignition keeps its record (journal, deployed_addresses.json, artifacts, build info): a rerun resumes it. */
  deploymentDir: string;
  module: IgnitionModule<string, string, Results>;
  parameters: DeploymentParameters;
  say?: (line: string) => void;
};

/** One line per contract Ignition deploys or binds, and per transaction it sends and sees confirmed. */
function progress(say: (line: string) => void): ExecutionEventListener {
  const lines: Partial<Record<keyof ExecutionEventListener, (event: never) => string | undefined>> = {
    deploymentStart: (e: { isResumed: boolean }) => (e.isResumed ? "resuming the deployment in its record" : undefined),
    deploymentExecutionStateInitialize: (e: { futureId: string }) => `deploying ${e.futureId}`,
    contractAtExecutionStateInitialize: (e: { futureId: string }) => `binding ${e.futureId} by address`,
    transactionSend: (e: { futureId: string; hash: string }) => `${e.futureId}: sent ${e.hash}`,
    transactionConfirm: (e: { futureId: string; hash: string }) => `${e.futureId}: confirmed`,
    onchainInteractionBumpFees: (e: { futureId: string }) => `${e.futureId}: fees bumped`,
    reconciliationWarnings: (e: { warnings: string[] }) =>
      e.warnings.length ? `the record also holds ${e.warnings.join(", ")}` : undefined,
  };
  return new Proxy({} as ExecutionEventListener, {
    get: (_, name: string) => async (event: never) => {
      const line = lines[name as keyof ExecutionEventListener]?.(event);
      if (line) say(line);
    },
  });
}

/**
 * Deploys an Ignition module with its record in a directory of the caller's choosing (Hardhat's own helper keeps it
 * inside the checkout): a rerun against the same record deploys only what is missing. Returns each result's address.
 * @throws {DeployError} when Ignition refuses (a missing parameter, a record that no longer matches) or a
 * transaction fails, with Ignition's reasons; when the record's journal is damaged, naming it and its line.
 * @example const { escrow } = await runIgnition({ rpcUrl, deployerKey, deploymentDir, module, parameters })
 */
export async function runIgnition<Results extends IgnitionModuleResult<string>>(
  p: RunIgnitionParameters<Results>,
): Promise<Record<keyof Results & string, Address>> {
  // Ignition names a damaged journal only by its row ("Could not parse row …"): read it first to name the file.
  readJournal(p.deploymentDir);
  const connection = await network.create({
    network: "localhost",
    override: { url: p.rpcUrl, ...(p.deployerKey ? { accounts: [p.deployerKey] } : {}) },
  });
  try {
    const accounts = (await connection.provider.request({ method: "eth_accounts" })) as string[];
    const result = await deploy({
      provider: connection.provider,
      deploymentDir: p.deploymentDir,
      artifactResolver: new HardhatArtifactResolver(hre.artifacts),
      ignitionModule: p.module,
      deploymentParameters: p.parameters,
      accounts,
      defaultSender: p.deployerKey ? privateKeyToAddress(p.deployerKey).toLowerCase() : undefined,
      executionEventListener: p.say ? progress(p.say) : undefined,
    });
    if (result.type !== DeploymentResultType.SUCCESSFUL_DEPLOYMENT)
      throw new DeployError(`Ignition did not deploy: ${ignitionProblems(result)}`);
    return Object.fromEntries(
      Object.entries(p.module.results).map(([name, future]) => [
        name,
        getAddress((result.contracts[(future as { id: string }).id] as { address: string }).address),
      ]),
    ) as Record<keyof Results & string, Address>;
  } finally {
    await connection.close();
  }
}

/** What Ignition reported instead of a deployment, in one line. */
function ignitionProblems(result: Exclude<Awaited<ReturnType<typeof deploy>>, { type: "SUCCESSFUL_DEPLOYMENT" }>) {
  switch (result.type) {
    case DeploymentResultType.VALIDATION_ERROR:
    case DeploymentResultType.RECONCILIATION_ERROR:
      return Object.entries(result.errors)
        .map(([future, errors]) => `${future}: ${errors.join(", ")}`)
        .join("; ");
    case DeploymentResultType.PREVIOUS_RUN_ERROR:
      return `the record holds a failed earlier run (${Object.entries(result.errors)
        .map(([future, errors]) => `${future}: ${errors.join(", ")}`)
        .join("; ")}); remove the record's journal entries for it or use a new DEPLOYMENT_DIR`;
    case DeploymentResultType.EXECUTION_ERROR:
      return [
        ...result.failed.map((f) => `${f.futureId} failed: ${f.error}`),
        ...result.timedOut.map((f) => `${f.futureId} timed out`),
        ...result.held.map((f) => `${f.futureId} held: ${f.reason}`),
      ].join("; ");
    default:
      return "an unknown result";
  }
}
