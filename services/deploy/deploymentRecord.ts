import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import { getAddress } from "viem";
import { DeployError } from "./deployError.ts";
import type { DeployParameters } from "./deployParameters.ts";
import { parametersJson, parseDeployParameters } from "./deployParameters.ts";

/**
 * What `npm run deploy` writes beside Ignition's own record in DEPLOYMENT_DIR (`deployment.json`): the contracts,
 * the block each was deployed in (where their events start), who deployed them and where the admin hand-off stands.
 * The services read their addresses and start blocks from it; `npm run check-deployment` reads it back.
 */
export type DeploymentRecord = {
  chainId: number;
  network?: string;
  deployer: Address;
  contracts: { token: Address; identity: Address; registry: Address; escrow: Address };
  /** The registry's and the escrow's deployment blocks (found on chain for a contract bound by address). */
  startBlocks: { ResourceRegistry: number; PaymentEscrow: number };
  /** Contracts bound by address rather than deployed by this record. */
  reused: ("registry" | "escrow")[];
  /** The admin hand-off: to whom, and from when it may be accepted (ISO time); absent once accepted. */
  adminHandOff?: { to: Address; acceptableFrom: string };
};

/** The files of a deployment record, in its directory. */
export function recordFiles(dir: string) {
  return {
    record: join(dir, "deployment.json"),
    parameters: join(dir, "parameters.json"),
    addresses: join(dir, "deployed_addresses.json"),
    journal: join(dir, "journal.jsonl"),
    verification: join(dir, "verification"),
  };
}

/**
 * Writes `deployment.json` and the parameters it was deployed with (`parameters.json`, Ignition's format).
 * @example writeDeploymentRecord(dir, record, parameters)
 */
export function writeDeploymentRecord(dir: string, record: DeploymentRecord, parameters: DeployParameters): void {
  mkdirSync(dir, { recursive: true });
  const files = recordFiles(dir);
  writeFileSync(files.record, `${JSON.stringify(record, null, 2)}\n`);
  writeFileSync(files.parameters, `${JSON.stringify({ $global: parametersJson(parameters) }, null, 2)}\n`);
}

/**
 * Reads a deployment record back: the record and its parameters.
 * @throws {DeployError} when the directory holds no record written by `npm run deploy`.
 * @example const { record, parameters } = readDeploymentRecord(process.env.DEPLOYMENT_DIR)
 */
export function readDeploymentRecord(dir: string): { record: DeploymentRecord; parameters: DeployParameters } {
  const files = recordFiles(dir);
  if (!existsSync(files.record))
    throw new DeployError(`DEPLOYMENT_DIR ${dir} holds no deployment (no deployment.json): run npm run deploy first`);
  const record = JSON.parse(readFileSync(files.record, "utf8")) as DeploymentRecord;
  const { $global } = JSON.parse(readFileSync(files.parameters, "utf8")) as { $global: unknown };
  return {
    record,
    parameters: parseDeployParameters($global, {
      deployer: getAddress(record.deployer),
      network: record.network,
      source: files.parameters,
    }),
  };
}

/** Ignition's journal lines of one kind. */
function journal(dir: string, type: string): { futureId: string; hash?: Hex; receipt?: { blockNumber: number } }[] {
  const file = recordFiles(dir).journal;
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line))
    .filter((message) => message.type === type);
}

/**
 * The transaction that deployed a future of the record, from Ignition's journal (undefined for one bound by address).
 * @example const hash = deploymentTransaction(dir, "ExternalStack#PaymentEscrow")
 */
export function deploymentTransaction(dir: string, futureId: string): { hash: Hex; block: number } | undefined {
  const confirmed = journal(dir, "TRANSACTION_CONFIRM").find((message) => message.futureId === futureId);
  if (!confirmed?.hash || !confirmed.receipt) return undefined;
  return { hash: confirmed.hash, block: Number(confirmed.receipt.blockNumber) };
}

/**
 * The address a future of the record was deployed at or bound to (`deployed_addresses.json`), if it has one.
 * @example const escrow = recordedAddress(dir, "ExternalStack#PaymentEscrow")
 */
export function recordedAddress(dir: string, futureId: string): Address | undefined {
  const file = recordFiles(dir).addresses;
  if (!existsSync(file)) return undefined;
  const address = (JSON.parse(readFileSync(file, "utf8")) as Record<string, string>)[futureId];
  return address ? getAddress(address) : undefined;
}
