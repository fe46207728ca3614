import { expect } from "chai";
import { lineCoverageOf } from "./checkCoverage.ts";

describe("checkCoverage: line coverage from an LCOV report", function () {
  it("counts each file's lines found and hit, and names the lines missed", function () {
    const lcov = [
      "TN:",
      "SF:contracts/PaymentEscrow.sol",
      "DA:10,3",
      "DA:11,0",
      "DA:12,1",
      "end_of_record",
      "SF:contracts/ResourceRegistry.sol",
      "DA:5,2",
      "end_of_record",
      "",
    ].join("\n");
    expect(Object.fromEntries(lineCoverageOf(lcov))).to.deep.equal({
      "contracts/PaymentEscrow.sol": { found: 3, hit: 2, missed: [11] },
      "contracts/ResourceRegistry.sol": { found: 1, hit: 1, missed: [] },
    });
  });
});
