import { expect } from "chai";
import { equivalentMutants } from "./equivalentMutants.ts";

describe("equivalentMutants: the survivors docs/audit/mutation.md explains", function () {
  it("reads each table row whose first cell is a mutant id, unescaping a | in it", function () {
    const markdown = [
      "# Mutation testing",
      "",
      "| mutant | why no test can kill it |",
      "|---|---|",
      "| `A.sol:3:5 comparison >= -> >` | the value is never equal there |",
      "| `A.sol:9:1 logical \\|\\| -> &&` | both sides are always equal |",
      "| not a mutant | ignored |",
      "| `comparison` | an operator's name, not a mutant |",
    ].join("\n");
    expect(Object.fromEntries(equivalentMutants(markdown))).to.deep.equal({
      "A.sol:3:5 comparison >= -> >": "the value is never equal there",
      "A.sol:9:1 logical || -> &&": "both sides are always equal",
    });
  });
});
