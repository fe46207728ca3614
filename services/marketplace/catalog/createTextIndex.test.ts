import { expect } from "chai";
import fc from "fast-check";
import { createTextIndex } from "./createTextIndex.ts";
import { searchTerms } from "./searchTerms.ts";

function ranked(index: ReturnType<typeof createTextIndex<string>>, query: string): [string, number][] {
  const hits: [string, number][] = [];
  index.search(searchTerms(query), (key, score) => hits.push([key, score]));
  return hits.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}
const keys = (hits: [string, number][]) => hits.map(([key]) => key);
const one = (text: string, weight = 1) => [{ text, weight }];

describe("createTextIndex", function () {
  it("finds the documents holding any of the terms, once each", function () {
    const index = createTextIndex<string>();
    index.put("a", one("palindrome check"));
    index.put("b", one("word count"));
    index.put("c", one("check words, check palindromes"));
    expect(keys(ranked(index, "palindrome word")).sort()).to.deep.equal(["a", "b", "c"]);
    expect(keys(ranked(index, "anagram"))).to.deep.equal([]);
  });

  it("scores a rarer term above a common one, and a heavier field above a lighter one", function () {
    const index = createTextIndex<string>();
    index.put("common", one("text text"));
    index.put("rare", one("palindrome text"));
    index.put("other", one("text stats"));
    expect(keys(ranked(index, "palindrome text"))[0]).to.equal("rare");
    const fields = createTextIndex<string>();
    fields.put("name", [
      { text: "digest", weight: 3 },
      { text: "hash of a text", weight: 1 },
    ]);
    fields.put("description", [
      { text: "hash", weight: 3 },
      { text: "digest of a text", weight: 1 },
    ]);
    expect(keys(ranked(fields, "digest"))).to.deep.equal(["name", "description"]);
  });

  it("replaces a document's text on put, and forgets it on remove", function () {
    const index = createTextIndex<string>();
    index.put("a", one("palindrome"));
    index.put("a", one("anagram"));
    expect(keys(ranked(index, "palindrome"))).to.deep.equal([]);
    expect(keys(ranked(index, "anagram"))).to.deep.equal(["a"]);
    index.remove("a");
    index.remove("a");
    expect(index.size).to.equal(0);
    expect(keys(ranked(index, "anagram"))).to.deep.equal([]);
  });

  it("scores exactly as a fresh index of the same documents, however many were replaced or removed before", function () {
    const words = ["alpha", "beta", "gamma", "delta", "epsilon"];
    const op = fc.record({
      key: fc.integer({ min: 0, max: 40 }).map(String),
      remove: fc.boolean(),
      text: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }).map((w) => w.join(" ")),
      weight: fc.constantFrom(1, 2, 3),
    });
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 3000 }), fc.constantFrom(...words), (ops, query) => {
        const index = createTextIndex<string>();
        const current = new Map<string, { text: string; weight: number }>();
        for (const o of ops) {
          if (o.remove) {
            index.remove(o.key);
            current.delete(o.key);
          } else {
            index.put(o.key, one(o.text, o.weight));
            current.set(o.key, { text: o.text, weight: o.weight });
          }
        }
        const fresh = createTextIndex<string>();
        for (const [key, { text, weight }] of current) fresh.put(key, one(text, weight));
        const got = ranked(index, query);
        const want = ranked(fresh, query);
        expect(keys(got)).to.deep.equal(keys(want));
        for (const [i, [, score]] of got.entries()) expect(score).to.be.closeTo(want[i]![1], 1e-9);
      }),
      { numRuns: 40 },
    );
  });
});
