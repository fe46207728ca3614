import { expect } from "chai";
import fc from "fast-check";
import { healthOf, reputationOf, uptimeOf } from "./scores.ts";

describe("scores", function () {
  describe("uptimeOf", function () {
    it("is 0 before the first probe", () => expect(uptimeOf([], 100)).to.equal(0));
    it("is the pass share in percent, rounded to 2 decimals", () =>
      expect(uptimeOf([true, false, true], 100)).to.equal(66.67));
    it("counts only the last `window` probes", () => expect(uptimeOf([false, false, true, true], 2)).to.equal(100));
  });

  describe("healthOf", function () {
    it("is unverified with score 0 before the first probe", () =>
      expect(healthOf([], 10)).to.deep.equal({ verified: false, score: 0 }));
    it("is verified by the last probe alone", () =>
      expect(healthOf([true, true, false], 10)).to.deep.equal({ verified: false, score: 66.67 }));
    it("scores over its own (short) window", () =>
      expect(healthOf([false, true], 1)).to.deep.equal({ verified: true, score: 100 }));
  });

  describe("reputationOf", function () {
    it("starts at 50 with no calls", () => expect(reputationOf(0, 0)).to.equal(50));
    it("rises with settled calls and falls with strikes", function () {
      expect(reputationOf(98, 0)).to.equal(99);
      expect(reputationOf(0, 2)).to.equal(25);
      expect(reputationOf(2, 0)).to.equal(75);
    });
  });

  it("keeps every score in [0, 100]", function () {
    fc.assert(
      fc.property(
        fc.array(fc.boolean(), { maxLength: 300 }),
        fc.integer({ min: 1, max: 200 }),
        fc.nat(1e9),
        fc.nat(1e9),
        (history, window, settled, struck) => {
          for (const value of [
            uptimeOf(history, window),
            healthOf(history, window).score,
            reputationOf(settled, struck),
          ]) {
            expect(value).to.be.within(0, 100);
          }
        },
      ),
    );
  });
});
