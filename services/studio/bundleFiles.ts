import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EndpointContract } from "./contract.ts";
import { endpointContractSchema } from "./contract.ts";
import type { Bundle } from "./createEndpoint.ts";
import { SetupError } from "./setupError.ts";

/** The files of a bundle that `--from` reads back; `writeBundle` also writes `card.json` and `report.json`. */
const READ_FILES = ["contract.json", "sentence.txt", "handler.mjs"] as const;

const WRITE_AGAIN = 'or write the bundle again with npm run studio -- --dry-run --out <dir> "<sentence>"';

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

/** What {@link readBundle} throws. */
export type ReadBundleErrorType = SetupError;

function why(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file or folder";
  if (code === "EACCES") return "permission denied";
  if (code === "ENOTDIR") return "not a folder";
  return code ?? (error as Error).message;
}

/** The bundle's files, read as text; a missing folder or file is a `no_bundle` SetupError naming every one missing. */
function readFiles(dir: string): Record<(typeof READ_FILES)[number], string> {
  const next = `give --from a folder written by --dry-run (${READ_FILES.join(", ")}), ${WRITE_AGAIN}`;
  try {
    if (!statSync(dir).isDirectory()) throw new SetupError("no_bundle", `${dir} is a file, not a bundle folder`, next);
  } catch (error) {
    if (error instanceof SetupError) throw error;
    throw new SetupError("no_bundle", `cannot read the bundle folder ${dir} (${why(error)})`, next);
  }
  const texts: Partial<Record<(typeof READ_FILES)[number], string>> = {};
  const missing: string[] = [];
  for (const name of READ_FILES) {
    try {
      texts[name] = readFileSync(join(dir, name), "utf8");
    } catch (error) {
      missing.push(`${name} (${why(error)})`);
    }
  }
  if (missing.length)
    throw new SetupError("no_bundle", `${dir} is not a bundle: cannot read ${missing.join(", ")}`, next);
  return texts as Record<(typeof READ_FILES)[number], string>;
}

/**
 * Reads a reviewed bundle folder back: its sentence, contract (validated) and handler source.
 * @throws {SetupError} `no_bundle` naming the folder and each file that cannot be read; `invalid_bundle` naming
 * `contract.json` and each field that does not validate (or that it is not JSON), with how to fix it.
 * @example const { contract, source } = readBundle("bundles/sha-256")
 */
export function readBundle(dir: string): { sentence: string; contract: EndpointContract; source: string } {
  const texts = readFiles(dir);
  const file = join(dir, "contract.json");
  let json: unknown;
  try {
    json = JSON.parse(texts["contract.json"]);
  } catch (error) {
    throw new SetupError(
      "invalid_bundle",
      `${file} is not JSON: ${(error as Error).message}`,
      `fix the file's syntax, ${WRITE_AGAIN}`,
    );
  }
  const parsed = endpointContractSchema.safeParse(json);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => issue.path.join(".") || "(the whole contract)");
    throw new SetupError(
      "invalid_bundle",
      `${file}: ${parsed.error.issues.map((issue, i) => `${fields[i]}: ${issue.message}`).join("; ")}`,
      `fix ${[...new Set(fields)].join(", ")} in ${file} (services/studio/contract.ts says what each field takes), ${WRITE_AGAIN}`,
    );
  }
  return { sentence: texts["sentence.txt"].trim(), contract: parsed.data, source: texts["handler.mjs"] };
}
