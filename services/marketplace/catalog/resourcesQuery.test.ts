import { expect } from "chai";
import { MAX_QUERY_LENGTH, MAX_QUERY_TERMS, parseResourcesQuery, withPriceFloor } from "./resourcesQuery.ts";

describe("parseResourcesQuery", function () {
  it("defaults limit to 1000 and offset to 0", function () {
    expect(parseResourcesQuery({})).to.deep.equal({ ok: true, query: { limit: 1000, offset: 0 } });
  });

  it("refuses an unknown parameter, naming it and the known ones", function () {
    for (const name of ["slug", "query", "Q", "minbond"]) {
      const parsed = parseResourcesQuery({ [name]: "x", category: "data" });
      expect(parsed.ok).to.equal(false);
      if (!parsed.ok) expect(parsed.message).to.contain(`"${name}" is not a parameter`).and.to.contain("q, category");
    }
    const long = parseResourcesQuery({ ["k".repeat(5000)]: "x" });
    expect(!long.ok && long.message.length).to.be.below(400);
  });

  it("keeps q as its distinct search terms", function () {
    expect(parseResourcesQuery({ q: "Palindromes, palindrome and the anagram" })).to.deep.equal({
      ok: true,
      query: { q: ["palindrom", "anagram"], limit: 1000, offset: 0 },
    });
    const words = Array.from({ length: MAX_QUERY_TERMS }, (_, i) => `w${i}`).join(" ");
    expect(parseResourcesQuery({ q: words }).ok).to.equal(true);
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
    ["a word for payable", { payable: "yes" }],
    ["a word for a score", { minUptime: "abc" }],
    ["a score above 100", { minReputation: "100.01" }],
    ["a negative score", { minUptime: "-5" }],
    ["limit 0", { limit: "0" }],
    ["limit 1001", { limit: "1001" }],
    ["a negative offset", { offset: "-1" }],
    ["an empty category", { category: "" }],
    ["a repeated parameter", { minBond: ["1", "2"] }],
    ["an empty q", { q: "" }],
    ["a q of stop words and punctuation only", { q: "the ?! of" }],
    [`a q over ${MAX_QUERY_LENGTH} characters`, { q: "a".repeat(MAX_QUERY_LENGTH + 1) }],
    [
      `a q of more than ${MAX_QUERY_TERMS} words`,
      { q: Array.from({ length: MAX_QUERY_TERMS + 1 }, (_, i) => `w${i}`).join(" ") },
    ],
    ["a repeated q", { q: ["palindrome", "anagram"] }],
  ];
  for (const [what, raw] of refused) {
    it(`refuses ${what}, naming the parameter`, function () {
      const parsed = parseResourcesQuery(raw);
      expect(parsed.ok).to.equal(false);
      if (!parsed.ok) expect(parsed.message).to.contain(Object.keys(raw)[0]!);
    });
  }
});

describe("withPriceFloor: payable as price bounds at the floor of the moment", function () {
  const page = { limit: 1000, offset: 0 };
  const parsed = (raw: Record<string, string>) => {
    const result = parseResourcesQuery(raw);
    if (!result.ok) throw new Error(result.message);
    return result.query;
  };

  it("payable=true keeps a base at the floor or above: minBasePrice rises to the floor, never falls", function () {
    expect(withPriceFloor(parsed({ payable: "true" }), 7680n)).to.deep.equal({ ...page, minBasePrice: 7680n });
    expect(withPriceFloor(parsed({ payable: "true", minBasePrice: "100" }), 7680n)).to.deep.equal({
      ...page,
      minBasePrice: 7680n,
    });
    expect(withPriceFloor(parsed({ payable: "true", minBasePrice: "9000" }), 7680n)).to.deep.equal({
      ...page,
      minBasePrice: 9000n,
    });
  });

  it("payable=false keeps a base below the floor: maxBasePrice falls to one below it, never rises", function () {
    expect(withPriceFloor(parsed({ payable: "false" }), 7680n)).to.deep.equal({ ...page, maxBasePrice: 7679n });
    expect(withPriceFloor(parsed({ payable: "false", maxBasePrice: "100" }), 7680n)).to.deep.equal({
      ...page,
      maxBasePrice: 100n,
    });
    expect(withPriceFloor(parsed({ payable: "false", maxBasePrice: "99999" }), 7680n)).to.deep.equal({
      ...page,
      maxBasePrice: 7679n,
    });
  });

  it("a floor of 0 (settlement free, or the floor off) makes every listing payable and none refused", function () {
    expect(withPriceFloor(parsed({ payable: "true" }), 0n).minBasePrice).to.equal(0n);
    expect(withPriceFloor(parsed({ payable: "false" }), 0n).maxBasePrice).to.equal(-1n);
  });

  it("leaves a query without payable as it is", function () {
    const query = parsed({ minBasePrice: "5", category: "data" });
    expect(withPriceFloor(query, 7680n)).to.equal(query);
  });
});
