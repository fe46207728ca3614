import { expect } from "chai";
import type { Report, Result } from "./reusableResult.ts";
import { partsOfKey, reusableResult } from "./reusableResult.ts";

const ID = "PaymentEscrow.sol:42:9 comparison < -> <=";
const result = (fields: Partial<Result> & { key: string }): Result => ({
  id: ID,
  status: "killed",
  seconds: 30,
  ...fields,
});
const reportOf = (...results: Result[]): Report => ({
  results: Object.fromEntries(results.map((r) => [r.key, r])),
});
const tests = {
  hash: "t2",
  text: 'it("refuses a second debit of a nonce", …)\nfunction invariant_E1_solvent() public',
};

describe("reusableResult: which earlier mutation result still holds", function () {
  it("keeps any result of the same contract and the same tests", function () {
    const survived = result({ key: `${ID}#c1#t2`, status: "survived" });
    expect(reusableResult(reportOf(survived), ID, "c1", tests)).to.equal(survived);
  });

  it("runs a mutant again when its contract changed, whatever the tests", function () {
    expect(reusableResult(reportOf(result({ key: `${ID}#c0#t2`, by: "contract tests: x" })), ID, "c1", tests)).to.equal(
      undefined,
    );
  });

  it("keeps a kill across new tests while the killing test is still there, mocha's or Solidity's", function () {
    const byMocha = result({ key: `${ID}#c1#t1`, by: "contract tests: refuses a second debit of a nonce" });
    expect(reusableResult(reportOf(byMocha), ID, "c1", tests)).to.equal(byMocha);
    const bySolidity = result({ key: `${ID}#c1#t1`, by: "Solidity tests: invariant_E1_solvent() (runs: 24)" });
    expect(reusableResult(reportOf(bySolidity), ID, "c1", tests)).to.equal(bySolidity);
  });

  it("runs a mutant again when the tests changed and its killing test is gone, or it was not a kill", function () {
    const gone = result({ key: `${ID}#c1#t1`, by: "contract tests: a test renamed since" });
    const survived = result({ key: `${ID}#c1#t1`, status: "survived" });
    const unnamed = result({ key: `${ID}#c1#t1`, by: "contract tests" });
    for (const earlier of [gone, survived, unnamed])
      expect(reusableResult(reportOf(earlier), ID, "c1", tests), earlier.by ?? earlier.status).to.equal(undefined);
  });

  it("reads a key whose mutant id holds a #", function () {
    expect(partsOfKey('A.sol:1:2 boolean "#" -> x#c1#t2')).to.deep.equal({
      mutantId: 'A.sol:1:2 boolean "#" -> x',
      contract: "c1",
      testsHash: "t2",
    });
  });
});
