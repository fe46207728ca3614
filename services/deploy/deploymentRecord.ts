import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import { getAddress } from "viem";
import { z } from "zod";
import { addressSchema } from "../protocol/schemas/primitives.ts";
import { DeployError } from "./deployError.ts";
import type { DeployParameters } from "./deployParameters.ts";
import { parametersJson, parseDeployParameters } from "./deployParameters.ts";

/**
 * What `npm run deploy` writes beside Ignition's own record in DEPLOYMENT_DIR (`deployment.json`): the contracts,
 * the block each was deployed in (where their events start), who deployed them and where the admin hand-off stands.
 * The services read their addresses and start blocks from it; `npm run check-deployment` reads it back.
 */
const deploymentRecordSchema = z.object({
  chainId: z.number().int().positive(),
  network: z.string().optional(),
  deployer: addressSchema,
  contracts: z.object({
    token: addressSchema,
    identity: addressSchema,
    registry: addressSchema,
    escrow: addressSchema,
  }),
  /** The registry's and the escrow's deployment blocks (found on chain for a contract bound by address). */
  startBlocks: z.object({ ResourceRegistry: z.number().int().min(0), PaymentEscrow: z.number().int().min(0) }),
  /** Contracts bound by address rather than deployed by this record. */
  reused: z.array(z.enum(["registry", "escrow"])),
  /** The admin hand-off: to whom, and from when it may be accepted (ISO time); absent once accepted. */
  adminHandOff: z.object({ to: addressSchema, acceptableFrom: z.string() }).optional(),
});

/** A deployment record, as `deployment.json` holds it. */
export type DeploymentRecord = z.output<typeof deploymentRecordSchema>;

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

/** What to do about a damaged file of the record that `npm run deploy` writes after each run. */
const REWRITE =
  "run npm run deploy again with the same --parameters file to write it again (the journal beside it keeps what was " +
  "deployed, so nothing is deployed twice), or restore DEPLOYMENT_DIR from its backup";

/** What to do about a damaged file that Ignition keeps (its journal, its addresses). */
const RESTORE =
  "restore DEPLOYMENT_DIR from its backup; a journal cut short at its last line (a deploy interrupted while writing " +
  "it) may have that line removed, then run npm run deploy again";

/** A JSON file of the record; a missing or unreadable one is a DeployError naming the file and what to do. */
function readRecordJson(file: string, next: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new DeployError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? error}): ${next}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DeployError(`${file} is damaged, not JSON (${(error as Error).message}): ${next}`);
  }
}

/**
 * Reads a deployment record back: the record and its parameters.
 * @throws {DeployError} when the directory holds no record written by `npm run deploy`, or one of its files is
 * missing, not JSON or not a record, naming the file and what to do.
 * @example const { record, parameters } = readDeploymentRecord(process.env.DEPLOYMENT_DIR)
 */
export function readDeploymentRecord(dir: string): { record: DeploymentRecord; parameters: DeployParameters } {
  const files = recordFiles(dir);
  if (!existsSync(files.record))
    throw new DeployError(`DEPLOYMENT_DIR ${dir} holds no deployment (no deployment.json): run npm run deploy first`);
  const parsed = deploymentRecordSchema.safeParse(readRecordJson(files.record, REWRITE));
  if (!parsed.success)
    throw new DeployError(
      `${files.record} is damaged: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}: ${REWRITE}`,
    );
  const record = parsed.data;
  const { $global } = (readRecordJson(files.parameters, REWRITE) ?? {}) as { $global?: unknown };
  return {
    record,
    parameters: parseDeployParameters($global, {
      deployer: record.deployer,
      network: record.network,
      source: files.parameters,
    }),
  };
}

/** One message of Ignition's journal, as far as the record reads it. */
type JournalMessage = { type?: string; futureId: string; hash?: Hex; receipt?: { blockNumber: number } };

/**
 * Ignition's journal (`journal.jsonl`, one JSON message a line; none when there is no journal yet). Read before
 * Ignition runs, so that a damaged journal is named with its line rather than as Ignition's "Could not parse row".
 * @throws {DeployError} naming the file, the line and what to do, for a line that is not JSON.
 * @example const messages = readJournal(dir)
 */
export function readJournal(dir: string): JournalMessage[] {
  const file = recordFiles(dir).journal;
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line, index) => {
      if (!line.trim()) return [];
      try {
        return [JSON.parse(line) as JournalMessage];
      } catch (error) {
        throw new DeployError(
          `${file} is damaged: line ${index + 1} is not JSON (${(error as Error).message}): ${RESTORE}`,
        );
      }
    });
}

/**
 * The transaction that deployed a future of the record, from Ignition's journal (undefined for one bound by address).
 * @example const hash = deploymentTransaction(dir, "ExternalStack#PaymentEscrow")
 */
export function deploymentTransaction(dir: string, futureId: string): { hash: Hex; block: number } | undefined {
  const confirmed = readJournal(dir).find(
    (message) => message.type === "TRANSACTION_CONFIRM" && message.futureId === futureId,
  );
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
  const address = (readRecordJson(file, RESTORE) as Record<string, string>)[futureId];
  return address ? getAddress(address) : undefined;
}
