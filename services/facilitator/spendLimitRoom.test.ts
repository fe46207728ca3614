import { expect } from "chai";
import { spendLimitRoom } from "./spendLimitRoom.ts";

describe("spendLimitRoom", function () {
  const now = 10_000n;
  const validBefore = now + 600n;
  const inForce = { limit: 5_000n, period: 3_600n, windowStart: now - 100n, spent: 1_000n, pending: null };

  it("is null without a limit in force or pending", function () {
    expect(spendLimitRoom({ ...inForce, limit: 0n, period: 0n }, now, validBefore)).to.equal(null);
  });

  it("is the limit less what the window spent, or the whole limit once the window has passed", function () {
    expect(spendLimitRoom(inForce, now, validBefore)).to.equal(4_000n);
    expect(spendLimitRoom({ ...inForce, windowStart: now - 3_600n }, now, validBefore)).to.equal(5_000n);
  });

  describe("with a pending tightening", function () {
    const pending = (limit: bigint, period: bigint, effectiveAt: bigint) => ({
      ...inForce,
      pending: { limit, period, effectiveAt },
    });

    it("counts it when it may be applied before the authorization expires, and the smaller room is left", function () {
      expect(spendLimitRoom(pending(2_000n, 3_600n, validBefore - 1n), now, validBefore)).to.equal(1_000n);
      expect(spendLimitRoom(pending(9_000n, 7_200n, validBefore - 1n), now, validBefore)).to.equal(4_000n);
    });

    it("counts what the window spent under the pending period, though the window in force has passed", function () {
      const passed = { ...pending(5_000n, 7_200n, now - 1n), windowStart: now - 3_600n };
      expect(spendLimitRoom(passed, now, validBefore)).to.equal(4_000n);
    });

    it("counts a first limit when none is in force", function () {
      const first = { ...pending(3_000n, 3_600n, now), limit: 0n, period: 0n };
      expect(spendLimitRoom(first, now, validBefore)).to.equal(2_000n);
    });

    it("ignores it when it cannot be applied before the authorization expires", function () {
      expect(spendLimitRoom(pending(1n, 3_600n, validBefore), now, validBefore)).to.equal(4_000n);
    });
  });
});
