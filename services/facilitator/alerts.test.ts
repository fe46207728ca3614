import { readFileSync } from "node:fs";
import { expect } from "chai";
import { load } from "js-yaml";
import { startLocalChain } from "../../testkit/chain/localChain.ts";
import { startFacilitator } from "../../testkit/facilitator/startFacilitator.ts";

type Rule = {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: Record<string, string>;
};

const rules = (
  load(readFileSync(new URL("./alerts.yml", import.meta.url), "utf8")) as { groups: { rules: Rule[] }[] }
).groups.flatMap((group) => group.rules);
const operations = readFileSync(new URL("../../docs/operations.md", import.meta.url), "utf8");

/** GitHub's anchor of a markdown heading. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, "")
    .replaceAll(" ", "-");

/** PromQL's aggregation operators, which may stand before their `by (...)` clause rather than a parenthesis. */
const AGGREGATIONS = ["sum", "min", "max", "avg", "count", "group", "stddev", "stdvar", "topk", "bottomk", "quantile"];

/**
 * The series names a rule's expression reads: what is left of it without label matchers, ranges, `by`/`without`
 * clauses, functions (a name before `(`), aggregations and keywords.
 */
function seriesOf(expr: string): string[] {
  const bare = expr
    .replace(/\{[^}]*\}/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, "");
  const words = [...bare.matchAll(/\b([a-zA-Z_][a-zA-Z0-9_]*)\b(?!\s*\()/g)].map((m) => m[1] as string);
  return words.filter(
    (word) => !AGGREGATIONS.includes(word) && !["and", "or", "unless", "bool", "offset"].includes(word),
  );
}

describe("facilitator: alert rules (alerts.yml)", function () {
  let exported: Set<string>;

  before(async function () {
    this.timeout(120_000);
    const chain = await startLocalChain();
    const facilitator = await startFacilitator(chain);
    try {
      const response = await fetch(`${facilitator.url}/metrics`);
      const text = await response.text();
      exported = new Set();
      for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
        exported.add(name as string);
        if (type === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) exported.add(`${name}${suffix}`);
      }
    } finally {
      await facilitator.stop();
      await chain.close();
    }
  });

  it("is a non-empty rules file whose alerts are named once each", function () {
    expect(rules.length).to.be.greaterThan(5);
    expect(new Set(rules.map((rule) => rule.alert)).size).to.equal(rules.length);
  });

  for (const rule of rules) {
    it(`${rule.alert}: reads only metrics the facilitator exports, with a severity, a summary and a runbook section`, function () {
      const series = seriesOf(rule.expr);
      expect(series, rule.expr).not.to.be.empty;
      for (const name of series) expect(exported.has(name), `${name} in ${rule.expr}`).to.equal(true);
      expect(rule.labels.severity).to.be.oneOf(["critical", "warning"]);
      expect(rule.annotations.summary).to.be.a("string").and.not.be.empty;
      const [file, anchor] = (rule.annotations.runbook ?? "").split("#");
      expect(file).to.equal("docs/operations.md");
      const headings = [...operations.matchAll(/^#+ (.+)$/gm)].map((m) => anchorOf(m[1] as string));
      expect(headings, `runbook #${anchor}`).to.include(anchor);
    });
  }

  it("a rule naming a metric the facilitator does not export is caught (the check above can fail)", function () {
    const series = seriesOf('sum by (endpoint) (rate(facilitator_rpc_error_total{kind="x"}[5m])) > 1');
    expect(series).to.deep.equal(["facilitator_rpc_error_total"]);
    expect(exported.has("facilitator_rpc_error_total")).to.equal(false);
  });
});
