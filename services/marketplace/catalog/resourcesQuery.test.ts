import { expect } from "chai";
import { parseResourcesQuery } from "./resourcesQuery.ts";

describe("parseResourcesQuery", function () {
  it("defaults limit to 1000 and offset to 0, and ignores unknown parameters", function () {
    expect(parseResourcesQuery({ foo: "bar" })).to.deep.equal({ ok: true, query: { limit: 1000, offset: 0 } });
  });

  it("parses base units as BigInt, beyond 2^53", function () {
    const parsed = parseResourcesQuery({
      minBond: "123456789012345678901234567890",
      minBasePrice: "0",
      maxBasePrice: "007",
    });
    expect(parsed).to.deep.equal({
      ok: true,
      query: { minBond: 123456789012345678901234567890n, minBasePrice: 0n, maxBasePrice: 7n, limit: 1000, offset: 0 },
    });
  });

  it("parses booleans, scores and paging", function () {
    expect(
      parseResourcesQuery({
        active: "false",
        minReputation: "99.5",
        minUptime: "100",
        limit: "1",
        offset: "20",
        category: "data",
      }),
    ).to.deep.equal({
      ok: true,
      query: { active: false, minReputation: 99.5, minUptime: 100, limit: 1, offset: 20, category: "data" },
    });
  });

  const refused: [string, Record<string, unknown>][] = [
    ["a fraction of base units", { minBond: "1.5" }],
    ["a negative amount", { minBasePrice: "-1" }],
    ["an exponent", { maxBasePrice: "1e3" }],
    ["hex", { minBond: "0x10" }],
    ["an empty amount", { minBond: "" }],
    ["79 digits", { minBond: "1".repeat(79) }],
    ["a word for a boolean", { active: "yes" }],
    ["a number for a boolean", { active: "0" }],
    ["a word for a score", { minUptime: "abc" }],
    ["a score above 100", { minReputation: "100.01" }],
    ["a negative score", { minUptime: "-5" }],
    ["limit 0", { limit: "0" }],
    ["limit 1001", { limit: "1001" }],
    ["a negative offset", { offset: "-1" }],
    ["an empty category", { category: "" }],
    ["a repeated parameter", { minBond: ["1", "2"] }],
  ];
  for (const [what, raw] of refused) {
    it(`refuses ${what}, naming the parameter`, function () {
      const parsed = parseResourcesQuery(raw);
      expect(parsed.ok).to.equal(false);
      if (!parsed.ok) expect(parsed.message).to.contain(Object.keys(raw)[0]!);
    });
  }
});
