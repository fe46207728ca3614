import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Address } from "viem";
import { getAddress } from "viem";

/** The contracts the indexer follows. */
export const INDEXED_CONTRACTS = ["ResourceRegistry", "PaymentEscrow", "IdentityRegistry"] as const;

/** One of the contracts the indexer follows. */
export type IndexedContract = (typeof INDEXED_CONTRACTS)[number];

/** Where a contract lives and the block to start indexing it from. */
export type DeployedContract = { address: Address; startBlock: number };

/** The default deployment output: Ignition's, for the local chain 5042002. */
export const DEFAULT_DEPLOYED_ADDRESSES = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../ignition/deployments/chain-5042002/deployed_addresses.json",
);

/**
 * Future ids Ignition gives each contract, in the `Stack` modules (deployed here) and the `ExternalStack` module
 * (the test network's existing identity registry, and a registry or escrow already deployed, bound with `contractAt`).
 */
const FUTURE_SUFFIXES: Record<IndexedContract, readonly string[]> = {
  ResourceRegistry: ["#ResourceRegistry", "#ExistingResourceRegistry"],
  PaymentEscrow: ["#PaymentEscrow", "#ExistingPaymentEscrow"],
  IdentityRegistry: ["#IdentityRegistry", "#ExistingIdentity"],
};

/** Start blocks `npm run deploy` found for contracts bound by address (`deployment.json` beside the record). */
function recordedStartBlocks(directory: string): Partial<Record<IndexedContract, number>> {
  const file = join(directory, "deployment.json");
  if (!existsSync(file)) return {};
  return (
    (JSON.parse(readFileSync(file, "utf8")) as { startBlocks?: Partial<Record<IndexedContract, number>> })
      .startBlocks ?? {}
  );
}

/** Deployment blocks from Ignition's journal (`TRANSACTION_CONFIRM` receipts), by future id. */
function journalBlocks(directory: string): Map<string, number> {
  const blocks = new Map<string, number>();
  const journal = join(directory, "journal.jsonl");
  if (!existsSync(journal)) return blocks;
  for (const line of readFileSync(journal, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const message = JSON.parse(line) as {
      type?: string;
      futureId?: string;
      receipt?: { blockNumber?: number | string };
    };
    if (message.type !== "TRANSACTION_CONFIRM" || !message.futureId || message.receipt?.blockNumber === undefined)
      continue;
    const block = Number(message.receipt.blockNumber);
    const known = blocks.get(message.futureId);
    if (known === undefined || block < known) blocks.set(message.futureId, block);
  }
  return blocks;
}

/**
 * Reads the contracts the indexer follows from an Ignition deployment output: addresses from
 * `deployed_addresses.json`, start blocks from the deployment receipts in the `journal.jsonl` beside it, else from
 * the `deployment.json` of `npm run deploy` (which finds the block of a contract bound by address), else block 0 (a
 * deployment written by a test harness, or the test network's identity registry, whose deployment Ignition never saw).
 * @throws {Error} when the file is missing or lacks one of the contracts.
 * @example const { ResourceRegistry } = readDeployment(process.env.DEPLOYED_ADDRESSES)
 */
export function readDeployment(path: string = DEFAULT_DEPLOYED_ADDRESSES): Record<IndexedContract, DeployedContract> {
  if (!existsSync(path)) {
    throw new Error(`deployment output ${path} not found: deploy the stack with Ignition, or set DEPLOYED_ADDRESSES`);
  }
  const futures = JSON.parse(readFileSync(path, "utf8")) as Record<string, string>;
  const blocks = journalBlocks(dirname(path));
  const recorded = recordedStartBlocks(dirname(path));
  const found = {} as Record<IndexedContract, DeployedContract>;
  for (const name of INDEXED_CONTRACTS) {
    const futureId = Object.keys(futures).find((id) => FUTURE_SUFFIXES[name].some((suffix) => id.endsWith(suffix)));
    if (!futureId)
      throw new Error(`deployment output ${path} has no ${name} (looked for ${FUTURE_SUFFIXES[name].join(", ")})`);
    found[name] = {
      address: getAddress(futures[futureId] as string),
      startBlock: blocks.get(futureId) ?? recorded[name] ?? 0,
    };
  }
  return found;
}
