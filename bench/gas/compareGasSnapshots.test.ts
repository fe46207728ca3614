import { expect } from "chai";
import { compareGasSnapshots, gasCheckFails } from "./compareGasSnapshots.ts";
import type { GasSnapshot } from "./gasSnapshotOf.ts";
import { gasSnapshotOf } from "./gasSnapshotOf.ts";

const compiler = { solc: "0.8.30", optimizerRuns: 10_000, viaIR: true, evmVersion: "cancun" };
const snapshot = (functions: Record<string, number>, deployment = 1_000_000): GasSnapshot => ({
  compiler,
  contracts: { PaymentEscrow: { deployment, functions } },
});

describe("the gas snapshot", function () {
  describe("gasSnapshotOf", function () {
    it("keeps each of our contracts' deployment and function medians, sorted, and nothing else", function () {
      const median = (m: number) => ({ min: m - 1, max: m + 1, avg: m, median: m, count: 3 });
      const taken = gasSnapshotOf(
        {
          contracts: {
            "contracts/PaymentEscrow.sol:PaymentEscrow": {
              contractName: "PaymentEscrow",
              deployment: median(4_000_000),
              functions: { withdraw: median(50_000), debit: median(60_000) },
            },
            "contracts/test/HostileToken.sol:HostileToken": {
              contractName: "HostileToken",
              deployment: median(9),
              functions: { mint: median(9) },
            },
          },
        },
        compiler,
      );
      expect(taken).to.deep.equal(snapshot({ debit: 60_000, withdraw: 50_000 }, 4_000_000));
      expect(Object.keys(taken.contracts.PaymentEscrow?.functions ?? {})).to.deep.equal(["debit", "withdraw"]);
    });
  });

  describe("compareGasSnapshots", function () {
    const committed = snapshot({ debit: 60_000, claim: 40_000, withdraw: 50_000 });

    it("passes changes within the tolerance either way", function () {
      const c = compareGasSnapshots(committed, snapshot({ debit: 60_600, claim: 39_700, withdraw: 50_000 }), 1);
      expect(c.increases).to.deep.equal([]);
      expect(c.decreases).to.deep.equal([]);
      expect(gasCheckFails(c)).to.equal(false);
    });

    it("fails an increase beyond the tolerance and reports a decrease beyond it without failing", function () {
      const c = compareGasSnapshots(committed, snapshot({ debit: 60_601, claim: 30_000, withdraw: 50_000 }), 1);
      expect(c.increases.map((x) => [x.name, x.before, x.after])).to.deep.equal([
        ["PaymentEscrow.debit", 60_000, 60_601],
      ]);
      expect(c.decreases.map((x) => x.name)).to.deep.equal(["PaymentEscrow.claim"]);
      expect(gasCheckFails(c)).to.equal(true);
      expect(
        gasCheckFails(
          compareGasSnapshots(committed, snapshot({ ...committed.contracts.PaymentEscrow?.functions, claim: 1 }), 1),
        ),
      ).to.equal(false);
    });

    it("fails a deployment that grew, a function the snapshot lacks or no longer measured, and other compiler settings", function () {
      const functions = committed.contracts.PaymentEscrow?.functions ?? {};
      expect(
        compareGasSnapshots(committed, snapshot(functions, 1_020_000), 1).increases.map((x) => x.name),
      ).to.deep.equal(["PaymentEscrow deployment"]);
      const { withdraw: _, ...fewer } = functions;
      const c = compareGasSnapshots(committed, snapshot({ ...fewer, pause: 30_000 }), 1);
      expect([c.added, c.removed]).to.deep.equal([["PaymentEscrow.pause"], ["PaymentEscrow.withdraw"]]);
      expect(gasCheckFails(c)).to.equal(true);
      const other = { ...snapshot(functions), compiler: { ...compiler, optimizerRuns: 200 } };
      expect(gasCheckFails(compareGasSnapshots(committed, other, 1))).to.equal(true);
    });
  });
});
