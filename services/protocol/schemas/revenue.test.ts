import { expect } from "chai";
import { resourceId, withValue } from "../../../testkit/protocol/fixtures.ts";
import { revenueSchema } from "./revenue.ts";

const revenue = {
  resourceId,
  calls: 3,
  gross: "3600",
  creator: "3420",
  treasury: "180",
  lastSettledAt: "2026-01-01T00:00:00.000Z",
};

describe("revenueSchema", () => {
  it("accepts a revenue record", () => expect(revenueSchema.safeParse(revenue).success).to.equal(true));

  it("accepts a resource that never settled", () => {
    expect(
      revenueSchema.safeParse({ ...revenue, calls: 0, gross: "0", creator: "0", treasury: "0", lastSettledAt: null })
        .success,
    ).to.equal(true);
  });

  it("rejects an extra property", () =>
    expect(revenueSchema.safeParse({ ...revenue, extra: 1 }).success).to.equal(false));

  const invalid: [string, string, unknown][] = [
    ["negative calls", "calls", -1],
    ["fractional calls", "calls", 1.5],
    ["calls as a string", "calls", "3"],
    ["a numeric gross", "gross", 3600],
    ["legs that do not add up to gross", "creator", "3421"],
    ["a missing lastSettledAt", "lastSettledAt", undefined],
    ["a malformed resourceId", "resourceId", "weather"],
  ];
  for (const [name, key, value] of invalid) {
    it(`rejects ${name}`, () =>
      expect(revenueSchema.safeParse(withValue(revenue, [key], value)).success).to.equal(false));
  }
});
