import { expect } from "chai";
import { gasCostInTokenUnits } from "./gasCostInTokenUnits.ts";

describe("gasCostInTokenUnits", () => {
  it("converts 18-decimal native wei to 6-decimal token units", () => {
    expect(gasCostInTokenUnits(33_847n, 20_000_000_000n)).to.equal(677n);
    expect(gasCostInTokenUnits(1_000_000n, 1_000_000n)).to.equal(1n);
  });

  it("rounds up, so a cost is never shown below what it was", () => {
    expect(gasCostInTokenUnits(1n, 1n)).to.equal(1n);
    expect(gasCostInTokenUnits(0n, 20_000_000_000n)).to.equal(0n);
    expect(gasCostInTokenUnits(50_000_000n, 20_000_000n)).to.equal(1_000n);
    expect(gasCostInTokenUnits(50_000_001n, 20_000_000n)).to.equal(1_001n);
  });
});
