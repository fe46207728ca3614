import { existsSync } from "node:fs";
import { privateKeyToAddress } from "viem/accounts";
import { readDeploymentRecord, recordFiles } from "../../deploy/deploymentRecord.ts";
import type { DeployParameters } from "../../deploy/deployParameters.ts";
import { parametersJson, parseDeployParameters } from "../../deploy/deployParameters.ts";
import { deploySystem } from "../../deploy/deploySystem.ts";
import { checkoutProblem } from "../../deploy/loadDeployConfig.ts";
import { defined } from "../../protocol/defined.ts";
import { deployLocalContracts } from "../deployContracts.ts";
import type { StackRun } from "../stackRun.ts";
import { keysOf } from "../stackRun.ts";

/**
 * Deploys the contracts. Locally, everything through Ignition's `Stack` module into a new record. In external mode,
 * through `deploySystem`, as `npm run deploy` does: beside the network's stablecoin and ERC-8004 registry, only what
 * the record in DEPLOYMENT_DIR lacks, the service roles held by exactly the keys given, and the admin role handed to
 * ADMIN_ADDRESS. A record written by `npm run deploy` keeps its contracts' settings (fee, strike policy, delays, and
 * contracts bound by address); the roles follow npm start's keys.
 * @example await deployStack(run)
 */
export async function deployStack(run: StackRun): Promise<void> {
  run.say(`deploying contracts through Ignition, record in ${run.deploymentDir}`);
  run.contracts = run.external ? await deployExternal(run) : await deployLocal(run);
  const { contracts } = run;
  run.say(
    `contracts: escrow ${contracts.escrow}, registry ${contracts.registry}, token ${contracts.token}, identity ${contracts.identity}`,
  );
}

function deployLocal(run: StackRun) {
  const keys = keysOf(run);
  return deployLocalContracts({
    rpcUrl: run.urls.rpc,
    deploymentDir: run.deploymentDir,
    roles: {
      admin: privateKeyToAddress(keys.deployer),
      treasury: keys.treasury,
      relayer: privateKeyToAddress(defined(keys.relayers[0], "a relayer key")),
      facilitator: privateKeyToAddress(keys.facilitator),
      publisher: privateKeyToAddress(keys.publisher),
    },
  });
}

async function deployExternal(run: StackRun) {
  const { env } = run;
  const keys = keysOf(run);
  const outside = checkoutProblem(run.deploymentDir, run.root);
  if (outside) throw new Error(outside);
  const deployer = privateKeyToAddress(keys.deployer);
  const previous: DeployParameters | undefined = existsSync(recordFiles(run.deploymentDir).parameters)
    ? readDeploymentRecord(run.deploymentDir).parameters
    : undefined;
  const parameters = parseDeployParameters(
    {
      ...(previous ? parametersJson(previous) : {}),
      admin: env.ADMIN_ADDRESS,
      treasury: keys.treasury,
      relayers: keys.relayers.map((key) => privateKeyToAddress(key)),
      facilitator: privateKeyToAddress(keys.facilitator),
      publisher: privateKeyToAddress(keys.publisher),
      tokenAddress: env.TOKEN_ADDRESS,
      identityAddress: env.IDENTITY_ADDRESS,
    },
    {
      deployer,
      network: env.NETWORK,
      source: "npm start's settings",
      names: {
        admin: "ADMIN_ADDRESS",
        treasury: "TREASURY_ADDRESS",
        relayers: "RELAYER_KEYS",
        facilitator: "FACILITATOR_KEY",
        publisher: "PUBLISHER_KEY",
        tokenAddress: "TOKEN_ADDRESS",
        identityAddress: "IDENTITY_ADDRESS",
      },
    },
  );
  const record = await deploySystem({
    rpcUrl: run.urls.rpc,
    deployerKey: keys.deployer,
    deploymentDir: run.deploymentDir,
    parameters,
    network: env.NETWORK,
    say: run.say,
  });
  return record.contracts;
}
