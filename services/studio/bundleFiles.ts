import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EndpointContract } from "./contract.ts";
import { endpointContractSchema } from "./contract.ts";
import type { Bundle } from "./createEndpoint.ts";

/**
 * Writes a verified bundle to a folder for review: `handler.mjs`, `contract.json` (schemas, examples, edge cases,
 * price, origin), `card.json` (the card template), `report.json` (every check) and `sentence.txt`.
 * @example writeBundle("bundles/sha-256", bundle)
 */
export function writeBundle(dir: string, bundle: Bundle): void {
  mkdirSync(dir, { recursive: true });
  const json = (name: string, value: unknown) => writeFileSync(join(dir, name), `${JSON.stringify(value, null, 2)}\n`);
  writeFileSync(join(dir, "handler.mjs"), bundle.source);
  writeFileSync(join(dir, "sentence.txt"), `${bundle.sentence}\n`);
  json("contract.json", bundle.contract);
  json("card.json", bundle.card);
  json("report.json", bundle.report);
}

/**
 * Reads a reviewed bundle folder back: its sentence, contract (validated) and handler source.
 * @throws {Error} when a file is missing or the contract does not validate.
 * @example const { contract, source } = readBundle("bundles/sha-256")
 */
export function readBundle(dir: string): { sentence: string; contract: EndpointContract; source: string } {
  const contract = endpointContractSchema.parse(JSON.parse(readFileSync(join(dir, "contract.json"), "utf8")));
  return {
    sentence: readFileSync(join(dir, "sentence.txt"), "utf8").trim(),
    contract,
    source: readFileSync(join(dir, "handler.mjs"), "utf8"),
  };
}
