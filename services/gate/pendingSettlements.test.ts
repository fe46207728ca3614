import { expect } from "chai";
import type { PendingSettlement } from "./gateRuntime.ts";
import { createPendingSettlements } from "./pendingSettlements.ts";

const NOW = 1_800_000_000;

/** A kept settlement whose response text is `bytes` long, expiring at `expiresAt`. */
const settlement = (bytes: number, expiresAt = NOW + 3_600): PendingSettlement =>
  ({ amount: 1n, text: "x".repeat(bytes), expiresAt }) as PendingSettlement;

describe("pendingSettlements", function () {
  it("keeps a settlement until it is settled (deleted), weighing its text twice and a kilobyte", function () {
    const pending = createPendingSettlements();
    pending.keep("a", settlement(100), NOW);
    expect(pending.get("a")?.text).to.have.length(100);
    expect(pending.size()).to.deep.equal({ count: 1, bytes: 1_224 });
    pending.delete("a");
    expect(pending.get("a")).to.equal(undefined);
    expect(pending.size()).to.deep.equal({ count: 0, bytes: 0 });
  });

  it("counts a payment kept again once, with its latest settlement", function () {
    const pending = createPendingSettlements();
    pending.keep("a", settlement(100), NOW);
    pending.keep("a", settlement(10), NOW);
    expect(pending.size()).to.deep.equal({ count: 1, bytes: 1_044 });
  });

  it("lets go of the expired settlements ahead of a new one", function () {
    const pending = createPendingSettlements();
    pending.keep("old", settlement(10, NOW + 5), NOW);
    pending.keep("live", settlement(10), NOW);
    pending.keep("new", settlement(10), NOW + 10);
    expect(pending.get("old")).to.equal(undefined);
    expect(pending.get("live")).to.not.equal(undefined);
    expect(pending.size().count).to.equal(2);
  });

  it("a flood of 503-answered settlements never holds more than its limit: the oldest go first", function () {
    const limit = 100 * 1_224;
    const pending = createPendingSettlements(limit);
    for (let i = 0; i < 100_000; i++) {
      pending.keep(`call-${i}`, settlement(100), NOW);
      expect(pending.size().bytes).to.be.at.most(limit);
    }
    expect(pending.size().count).to.equal(100);
    expect(pending.get("call-99899")).to.equal(undefined);
    expect(pending.get("call-99900")).to.not.equal(undefined);
    expect(pending.get("call-99999")).to.not.equal(undefined);
  });
});
