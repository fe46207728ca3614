import type { Address, Hex, PublicClient } from "viem";
import { getAddress, hashDomain, isAddressEqual } from "viem";
import type { ContractName } from "../protocol/artifacts.ts";
import { abiOf, contractArtifactOf } from "../protocol/artifacts.ts";
import { CHAIN_ID, ESCROW_DOMAIN_NAME, ESCROW_DOMAIN_VERSION } from "../protocol/constants.ts";
import { REGISTRY_DOMAIN, tokenDomain } from "../protocol/typedData.ts";
import { connectChain } from "./connectChain.ts";
import { readDeploymentRecord } from "./deploymentRecord.ts";
import { holdersOf, readRoleHolders } from "./readRoleHolders.ts";
import { ROLES, roleAssignments } from "./roles.ts";

/** One line of the check: what is checked, what the record says, what the chain holds, and whether they agree. */
export type CheckRow = { check: string; expected: string; actual: string; ok: boolean };

const ABI = { escrow: abiOf("PaymentEscrow"), registry: abiOf("ResourceRegistry"), token: abiOf("IFiatToken") };

function row(check: string, expected: unknown, actual: unknown, ok = String(expected) === String(actual)): CheckRow {
  return { check, expected: String(expected), actual: String(actual), ok };
}

/** Deployed code with its immutables (filled in by the constructor) zeroed, so it compares with the artifact's. */
function withoutImmutables(code: Hex, references: Record<string, { start: number; length: number }[]> = {}): string {
  const hex = code.slice(2).split("");
  for (const ranges of Object.values(references))
    for (const { start, length } of ranges) hex.fill("0", start * 2, (start + length) * 2);
  return hex.join("").toLowerCase();
}

async function bytecodeRow(client: PublicClient, name: ContractName, address: Address): Promise<CheckRow> {
  const artifact = contractArtifactOf(name);
  const code = (await client.getCode({ address })) ?? "0x";
  const same =
    withoutImmutables(code, artifact.immutableReferences) ===
    withoutImmutables(artifact.deployedBytecode, artifact.immutableReferences);
  return row(
    `${name} bytecode`,
    `artifacts/ (${(artifact.deployedBytecode.length - 2) / 2} bytes)`,
    same ? "the same, immutables aside" : `differs (${(code.length - 2) / 2} bytes on chain)`,
    same,
  );
}

/**
 * Reads a deployment back from the chain and compares it with its record (DEPLOYMENT_DIR): the chain, every role's
 * holders (from the contracts' role events: nobody more, nobody less), the admin (or its pending hand-off), the fee,
 * the treasury, the strike policy, the token and registry bindings, the EIP-712 domains, and the deployed bytecode
 * against the build's artifacts. `npm run check-deployment` prints the rows and fails on any that disagrees.
 * @throws {DeployError} when the record cannot be read or the RPC cannot be reached.
 * @example const rows = await checkDeployment({ rpcUrl, deploymentDir }); const ok = rows.every((r) => r.ok)
 */
export async function checkDeployment(p: {
  rpcUrl: string;
  deploymentDir: string;
  logRangeBlocks?: number;
}): Promise<CheckRow[]> {
  const { record, parameters } = readDeploymentRecord(p.deploymentDir);
  const client = await connectChain(p.rpcUrl);
  const { escrow, registry, token, identity } = record.contracts;
  const read = <T>(contract: "escrow" | "registry" | "token", functionName: string, args: unknown[] = []) =>
    client.readContract({
      address: record.contracts[contract],
      abi: ABI[contract],
      functionName: functionName as never,
      args: args as never,
    }) as Promise<T>;
  const rows: CheckRow[] = [row("chain id", CHAIN_ID, await client.getChainId())];

  for (const [name, address] of [
    ["PaymentEscrow", escrow],
    ["ResourceRegistry", registry],
  ] as const)
    rows.push(await bytecodeRow(client, name, address));
  rows.push(
    row("escrow's token", token, getAddress(await read<Address>("escrow", "token"))),
    row("escrow's registry", registry, getAddress(await read<Address>("escrow", "registry"))),
    row("registry's token", token, getAddress(await read<Address>("registry", "token"))),
    row("registry's identity registry", identity, getAddress(await read<Address>("registry", "identity"))),
    row("escrow's treasury", parameters.treasury, getAddress(await read<Address>("escrow", "treasury"))),
    row("registry's treasury", parameters.treasury, getAddress(await read<Address>("registry", "treasury"))),
    row("fee (basis points)", parameters.feeBps, await read<number>("escrow", "feeBps")),
    row("strike threshold", parameters.strikeThreshold, await read<number>("registry", "strikeThreshold")),
    row("slash (basis points)", parameters.slashBps, await read<number>("registry", "slashBps")),
    row("minimum bond", parameters.minBond, await read<bigint>("registry", "minBond")),
    row(
      "bond withdrawal delay (s)",
      parameters.bondWithdrawalDelay,
      await read<bigint>("registry", "bondWithdrawalDelay"),
    ),
  );

  const escrowDomain = await read<readonly [Hex, string, string, bigint, Address]>("escrow", "eip712Domain");
  rows.push(
    row(
      "escrow's EIP-712 domain",
      `${ESCROW_DOMAIN_NAME} ${ESCROW_DOMAIN_VERSION} ${CHAIN_ID} ${escrow}`,
      `${escrowDomain[1]} ${escrowDomain[2]} ${escrowDomain[3]} ${getAddress(escrowDomain[4])}`,
    ),
  );
  const registryDomain = await read<readonly [Hex, string, string, bigint, Address]>("registry", "eip712Domain");
  rows.push(
    row(
      "registry's EIP-712 domain",
      `${REGISTRY_DOMAIN.name} ${REGISTRY_DOMAIN.version} ${CHAIN_ID} ${registry}`,
      `${registryDomain[1]} ${registryDomain[2]} ${registryDomain[3]} ${getAddress(registryDomain[4])}`,
    ),
  );
  const domain = tokenDomain(token);
  const separator = hashDomain({
    domain: { ...domain, chainId: BigInt(domain.chainId) },
    types: {
      EIP712Domain: [
        { name: "name", type: "string" },
        { name: "version", type: "string" },
        { name: "chainId", type: "uint256" },
        { name: "verifyingContract", type: "address" },
      ],
    },
  });
  rows.push(
    row(
      `token's EIP-712 domain (${domain.name} ${domain.version})`,
      separator,
      await read<Hex>("token", "DOMAIN_SEPARATOR"),
    ),
  );

  const holders = {
    escrow: await readRoleHolders(client, escrow, BigInt(record.startBlocks.PaymentEscrow), p.logRangeBlocks),
    registry: await readRoleHolders(client, registry, BigInt(record.startBlocks.ResourceRegistry), p.logRangeBlocks),
  };
  for (const contract of ["escrow", "registry"] as const) {
    const admin = getAddress(await read<Address>(contract, "defaultAdmin"));
    const [next, schedule] = await read<readonly [Address, number]>(contract, "pendingDefaultAdmin");
    const pendingToAdmin = isAddressEqual(admin, record.deployer) && isAddressEqual(next, parameters.admin);
    rows.push(
      row(
        `${contract} admin`,
        parameters.admin,
        pendingToAdmin
          ? `${admin} (the deployer), hand-off to ${getAddress(next)} acceptable from ${new Date(Number(schedule) * 1000).toISOString()}`
          : admin,
        admin === parameters.admin || pendingToAdmin,
      ),
      row(
        `${contract} DEFAULT_ADMIN_ROLE holders`,
        admin,
        holdersOf(holders[contract], ROLES[contract].DEFAULT_ADMIN_ROLE).join(" ") || "nobody",
      ),
      row(`${contract} admin delay (s)`, parameters.adminDelay, await read<number>(contract, "defaultAdminDelay")),
    );
  }
  for (const { contract, role, hash, holders: wanted } of roleAssignments(parameters))
    rows.push(
      row(
        `${contract} ${role} holders`,
        [...wanted].sort().join(" "),
        holdersOf(holders[contract], hash).join(" ") || "nobody",
      ),
    );
  return rows;
}

/**
 * The rows as a table, one per line, a mismatch marked.
 * @example process.stdout.write(formatCheckTable(rows))
 */
export function formatCheckTable(rows: CheckRow[]): string {
  const width = (key: "check" | "expected") => Math.max(key.length, ...rows.map((r) => r[key].length));
  const [check, expected] = [width("check"), width("expected")];
  const line = (a: string, b: string, c: string, d: string) =>
    `${a.padEnd(check)}  ${b.padEnd(expected)}  ${c.padEnd(8)}  ${d}`;
  return `${[line("check", "expected", "ok", "actual"), ...rows.map((r) => line(r.check, r.expected, r.ok ? "ok" : "MISMATCH", r.actual))].join("\n")}\n`;
}
