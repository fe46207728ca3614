import { expect } from "chai";
import { MAX_TERM_LENGTH, searchTerms } from "./searchTerms.ts";

describe("searchTerms", function () {
  it("folds case and accents and splits on anything but letters and digits", function () {
    expect(searchTerms("Résumé PARSER: sha-256/UTF8")).to.deep.equal(["resum", "parser", "sha", "256", "utf8"]);
  });

  it("drops stop words", function () {
    expect(searchTerms("Is this a palindrome?")).to.deep.equal(["palindrom"]);
    expect(searchTerms("the of and")).to.deep.equal([]);
  });

  it("meets a word's singular and plural on one term", function () {
    const pairs = [
      ["palindrome", "palindromes"],
      ["hash", "hashes"],
      ["entry", "entries"],
      ["word", "words"],
      ["box", "boxes"],
      ["address", "addresses"],
      ["cache", "caches"],
    ];
    for (const [one, many] of pairs) expect(searchTerms(many!), many).to.deep.equal(searchTerms(one!));
  });

  it("keeps words whose s is not a plural, and short words", function () {
    expect(searchTerms("status class analysis csv use")).to.deep.equal(["status", "class", "analysis", "csv", "use"]);
  });

  it("keeps letters and digits of any script", function () {
    expect(searchTerms("天気 ПОГОДА ٣")).to.deep.equal(["天気", "погода", "٣"]);
  });

  it(`cuts a term to ${MAX_TERM_LENGTH} characters`, function () {
    expect(searchTerms("x".repeat(100))[0]).to.have.length(MAX_TERM_LENGTH);
  });
});
