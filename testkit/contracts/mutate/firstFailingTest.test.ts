import { expect } from "chai";
import { firstFailingTest } from "./firstFailingTest.ts";

describe("firstFailingTest: the test that killed a mutant, from the run's output", function () {
  it("names mocha's first failure, colours stripped", function () {
    const output = "  debit()\n    ✔ pays the seller\n\u001b[31m    1) refuses a second debit of a nonce\u001b[0m\n";
    expect(firstFailingTest(output)).to.equal("refuses a second debit of a nonce");
  });

  it("names a failing Solidity test", function () {
    expect(firstFailingTest("    ✔ testFuzz_a()\n    ✘ invariant_E1_solvent() (runs: 24)\n")).to.equal(
      "invariant_E1_solvent() (runs: 24)",
    );
  });

  it("names none when the output names no failure", function () {
    expect(firstFailingTest("Error: something else\n")).to.equal(undefined);
  });
});
