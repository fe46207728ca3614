import { expect } from "chai";
import { readRange } from "./readRange.ts";

describe("the bounds a sentence puts on a number", function () {
  it("reads between, a hyphen range, up to, below and at least", function () {
    expect(readRange("Write a whole number between 1 and 3999 as Roman numerals")).to.deep.equal([
      { minimum: 1, maximum: 3999, text: "between 1 and 3999" },
    ]);
    expect(readRange("numbers 1-100 into words")[0]).to.include({ minimum: 1, maximum: 100 });
    expect(readRange("factorial of an integer up to 500")[0]).to.include({ maximum: 500 });
    expect(readRange("roman numerals for numbers below 4000")[0]).to.include({ maximum: 3999 });
    expect(readRange("primes of at least 2")[0]).to.include({ minimum: 2 });
  });

  it("reads a number followed by a word as a count of it, not a bound, and an expression as no range", function () {
    expect(readRange("Truncate a text to at most 50 characters")).to.deep.equal([]);
    expect(readRange("split a list into batches of up to 10 items")).to.deep.equal([]);
    expect(readRange("evaluate arithmetic like 7 * 6 - 2")).to.deep.equal([]);
    expect(readRange("days between 2024-01-01 and 2024-12-31")).to.deep.equal([]);
  });
});
