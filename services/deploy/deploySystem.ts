import type { Address, Hex, PublicClient } from "viem";
import { createWalletClient, getAddress, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { externalStackModule } from "../../ignition/modules/ExternalStack.ts";
import { abiOf } from "../protocol/artifacts.ts";
import { serviceChain } from "../protocol/chain.ts";
import { CHAIN_ID } from "../protocol/constants.ts";
import { connectChain } from "./connectChain.ts";
import { DeployError } from "./deployError.ts";
import type { DeploymentRecord } from "./deploymentRecord.ts";
import { deploymentTransaction, recordedAddress, writeDeploymentRecord } from "./deploymentRecord.ts";
import type { DeployParameters } from "./deployParameters.ts";
import { findCreationBlock } from "./findCreationBlock.ts";
import { holdersOf, readRoleHolders } from "./readRoleHolders.ts";
import { ROLES, roleAssignments } from "./roles.ts";
import { runIgnition } from "./runIgnition.ts";
import { writeVerificationInput } from "./writeVerificationInput.ts";

export type DeploySystemParameters = {
  rpcUrl: string;
  deployerKey: Hex;
  /** Where the record is kept: Ignition's journal and ours; a rerun with the same record deploys nothing. */
  deploymentDir: string;
  parameters: DeployParameters;
  /** The named network (`arc-testnet`), kept in the record. */
  network?: string;
  logRangeBlocks?: number;
  say: (line: string) => void;
};

const ABI = { escrow: abiOf("PaymentEscrow"), registry: abiOf("ResourceRegistry") } as const;

/** A role change the deployer cannot make (it no longer holds the admin role): the admin must send it. */
type PendingCall = { contract: "escrow" | "registry"; functionName: "grantRole" | "revokeRole"; args: [Hex, Address] };

/**
 * Deploys the system onto a chain that already has the stablecoin and the ERC-8004 identity registry, and leaves it
 * as the parameters say: the registry and escrow through Ignition (or bound by address), every service role held by
 * exactly the accounts named (missing ones granted, any other holder revoked), the admin role on its way to the
 * admin (the deployer begins the two-step transfer; the admin accepts once the contracts' `adminDelay` has passed)
 * and the deployer holding no other role. Each step is checked first, so a rerun with the same record and parameters
 * sends nothing. Writes the record (`deployment.json`, `parameters.json`) and the explorers' verification input.
 * `npm run deploy` and `npm start` in external mode both deploy through it.
 * @throws {DeployError} for an unreachable RPC, contracts missing at the addresses given, a record that names other
 * contracts, or role changes the deployer may no longer make (naming the calls the admin must send).
 * @example const record = await deploySystem({ rpcUrl, deployerKey, deploymentDir, parameters, say: console.log })
 */
export async function deploySystem(p: DeploySystemParameters): Promise<DeploymentRecord> {
  const { parameters, say } = p;
  const deployer = privateKeyToAccount(p.deployerKey);
  const client = await connectChain(p.rpcUrl);
  await expectCode(client, { token: parameters.tokenAddress, identity: parameters.identityAddress });
  await expectCode(client, { registry: parameters.registryAddress, escrow: parameters.escrowAddress });
  for (const [name, given] of [
    ["ResourceRegistry", parameters.registryAddress],
    ["PaymentEscrow", parameters.escrowAddress],
  ] as const) {
    const deployed = recordedAddress(p.deploymentDir, `ExternalStack#${name}`);
    if (given && deployed && deployed !== given)
      throw new DeployError(
        `the record in ${p.deploymentDir} deployed the ${name} at ${deployed}, not ${given}: use another DEPLOYMENT_DIR to bind ${given}`,
      );
  }

  say(`deploying through Ignition as ${deployer.address}, record in ${p.deploymentDir}`);
  const contracts = await runIgnition({
    rpcUrl: p.rpcUrl,
    deployerKey: p.deployerKey,
    deploymentDir: p.deploymentDir,
    module: externalStackModule({ registry: parameters.registryAddress, escrow: parameters.escrowAddress }),
    parameters: {
      $global: {
        tokenAddress: parameters.tokenAddress,
        identityAddress: parameters.identityAddress,
        treasury: parameters.treasury,
        feeBps: parameters.feeBps,
        strikeThreshold: parameters.strikeThreshold,
        slashBps: parameters.slashBps,
        minBond: parameters.minBond,
        bondWithdrawalDelay: parameters.bondWithdrawalDelay,
        adminDelay: parameters.adminDelay,
      },
    },
    say,
  });
  say(`contracts: escrow ${contracts.escrow}, registry ${contracts.registry}`);

  const startBlocks = {
    ResourceRegistry: Number(
      deploymentTransaction(p.deploymentDir, "ExternalStack#ResourceRegistry")?.block ??
        (await findCreationBlock(client, contracts.registry)),
    ),
    PaymentEscrow: Number(
      deploymentTransaction(p.deploymentDir, "ExternalStack#PaymentEscrow")?.block ??
        (await findCreationBlock(client, contracts.escrow)),
    ),
  };
  const wallet = createWalletClient({ account: deployer, chain: serviceChain(p.rpcUrl), transport: http(p.rpcUrl) });
  const send = async (contract: "escrow" | "registry", functionName: string, args: unknown[], what: string) => {
    const hash = await wallet.writeContract({
      address: contracts[contract],
      abi: ABI[contract],
      functionName: functionName as never,
      args: args as never,
    });
    const receipt = await client.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new DeployError(`${what} reverted (${hash})`);
    say(`${what}: ${hash}`);
  };
  const read = <T>(contract: "escrow" | "registry", functionName: string, args: unknown[] = []) =>
    client.readContract({
      address: contracts[contract],
      abi: ABI[contract],
      functionName: functionName as never,
      args: args as never,
    }) as Promise<T>;

  // Service roles: exactly the accounts named. The deployer may change them while it holds the admin role.
  const pending: PendingCall[] = [];
  const holders = {
    escrow: await readRoleHolders(client, contracts.escrow, BigInt(startBlocks.PaymentEscrow), p.logRangeBlocks),
    registry: await readRoleHolders(client, contracts.registry, BigInt(startBlocks.ResourceRegistry), p.logRangeBlocks),
  };
  for (const { contract, role, hash, holders: wanted } of roleAssignments(parameters)) {
    const held = holdersOf(holders[contract], hash);
    const isAdmin = await read<boolean>(contract, "hasRole", [ROLES[contract].DEFAULT_ADMIN_ROLE, deployer.address]);
    const changes = [
      ...wanted.filter((a) => !held.includes(a)).map((a) => ["grantRole", a] as const),
      ...held.filter((a) => !wanted.includes(a)).map((a) => ["revokeRole", a] as const),
    ];
    for (const [functionName, account] of changes) {
      if (account === deployer.address && functionName === "revokeRole")
        await send(contract, "renounceRole", [hash, account], `the deployer renounces ${role} on the ${contract}`);
      else if (isAdmin)
        await send(
          contract,
          functionName,
          [hash, account],
          `${functionName === "grantRole" ? "granted" : "revoked"} ${role} on the ${contract} ${functionName === "grantRole" ? "to" : "from"} ${account}`,
        );
      else pending.push({ contract, functionName, args: [hash, account] });
    }
  }
  if (pending.length)
    throw new DeployError(
      `the deployer no longer holds the admin role, so the admin ${parameters.admin} must send: ${pending
        .map((c) => `${c.functionName}(${c.args.join(", ")}) on the ${c.contract} ${contracts[c.contract]}`)
        .join("; ")}`,
    );

  // The admin role: the deployer begins the two-step transfer; the admin accepts after the delay.
  let adminHandOff: DeploymentRecord["adminHandOff"];
  for (const contract of ["escrow", "registry"] as const) {
    const current = getAddress(await read<Address>(contract, "defaultAdmin"));
    if (current === parameters.admin) continue;
    if (current !== deployer.address)
      throw new DeployError(
        `the admin of the ${contract} ${contracts[contract]} is ${current}, neither the deployer nor ${parameters.admin}`,
      );
    let [next, schedule] = await read<[Address, number]>(contract, "pendingDefaultAdmin");
    if (getAddress(next) !== parameters.admin) {
      await send(
        contract,
        "beginDefaultAdminTransfer",
        [parameters.admin],
        `admin hand-off of the ${contract} to ${parameters.admin} begun`,
      );
      [next, schedule] = await read<[Address, number]>(contract, "pendingDefaultAdmin");
    }
    adminHandOff = { to: parameters.admin, acceptableFrom: new Date(Number(schedule) * 1000).toISOString() };
  }
  if (adminHandOff)
    say(
      `the admin ${adminHandOff.to} accepts with acceptDefaultAdminTransfer() on ${contracts.escrow} and ${contracts.registry} from ${adminHandOff.acceptableFrom}`,
    );

  const record: DeploymentRecord = {
    chainId: CHAIN_ID,
    ...(p.network ? { network: p.network } : {}),
    deployer: deployer.address,
    contracts: {
      token: parameters.tokenAddress,
      identity: parameters.identityAddress,
      registry: contracts.registry,
      escrow: contracts.escrow,
    },
    startBlocks,
    reused: [
      ...(parameters.registryAddress ? (["registry"] as const) : []),
      ...(parameters.escrowAddress ? (["escrow"] as const) : []),
    ],
    ...(adminHandOff ? { adminHandOff } : {}),
  };
  writeDeploymentRecord(p.deploymentDir, record, parameters);
  const verification = await writeVerificationInput(p.deploymentDir, client, [
    { contract: "ResourceRegistry", address: contracts.registry, futureId: "ExternalStack#ResourceRegistry" },
    { contract: "PaymentEscrow", address: contracts.escrow, futureId: "ExternalStack#PaymentEscrow" },
  ]);
  if (verification.length)
    say(
      `verification input for ${verification.map((v) => v.contract).join(" and ")} in ${p.deploymentDir}/verification`,
    );
  return record;
}

/** Refuses addresses given for contracts that have no code there. */
async function expectCode(client: PublicClient, contracts: Record<string, Address | undefined>): Promise<void> {
  for (const [name, address] of Object.entries(contracts)) {
    if (!address) continue;
    const code = await client.getCode({ address });
    if (!code || code === "0x") throw new DeployError(`no contract at ${address} (the ${name} given) on this chain`);
  }
}
