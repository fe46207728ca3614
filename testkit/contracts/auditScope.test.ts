import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { renderAuditScope, SCOPE_FILE, scopeIsCurrent } from "./auditScope.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONTRACTS = ["PaymentEscrow", "ResourceRegistry", "IdentityRegistry"] as const;

describe("docs/audit: the auditor's kit matches the contracts", function () {
  it("scope.md is what npm run audit:scope writes for the sources as they are", function () {
    const written = readFileSync(SCOPE_FILE, "utf8");
    const commit = /^Commit: (.*) \(the last commit/m.exec(written)?.[1] ?? "";
    expect(scopeIsCurrent(written, renderAuditScope(commit)), "run npm run audit:scope").to.equal(true);
  });

  it("scopeIsCurrent sees a changed count but not a changed commit", function () {
    const rendered = renderAuditScope("abc1234 a subject");
    expect(scopeIsCurrent(rendered.replace("abc1234", "def5678"), rendered)).to.equal(true);
    expect(scopeIsCurrent(rendered.replace(/\| \*\*\d+\*\* \|/, "| **1** |"), rendered)).to.equal(false);
  });

  it("access-control.md names every state-changing function of the three contracts' ABIs", function () {
    const table = readFileSync(`${ROOT}/docs/audit/access-control.md`, "utf8");
    const missing: string[] = [];
    for (const contract of CONTRACTS) {
      let artifact: { abi: Array<{ type: string; name?: string; stateMutability?: string }> };
      try {
        artifact = JSON.parse(readFileSync(`${ROOT}/artifacts/contracts/${contract}.sol/${contract}.json`, "utf8"));
      } catch {
        throw new Error(`no artifact of ${contract}: run npm run compile`);
      }
      for (const entry of artifact.abi) {
        if (entry.type !== "function" || entry.stateMutability === "view" || entry.stateMutability === "pure") continue;
        if (
          !table.includes(`\`${entry.name}`) &&
          !table.includes(` ${entry.name}\``) &&
          !table.includes(`${entry.name}(`)
        ) {
          missing.push(`${contract}.${entry.name}`);
        }
      }
    }
    expect(missing, "functions missing from docs/audit/access-control.md").to.deep.equal([]);
  });
});
