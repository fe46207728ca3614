import { expect } from "chai";
import { formatAmount } from "./formatAmount.ts";

describe("formatAmount", function () {
  it("shows base units and USDC at 6 decimals, exactly, for tiny and huge amounts", function () {
    expect(formatAmount(1_200n)).to.deep.equal({ base: "1200", usdc: "0.0012 USDC" });
    expect(formatAmount("1000000")).to.deep.equal({ base: "1000000", usdc: "1 USDC" });
    expect(formatAmount(0n)).to.deep.equal({ base: "0", usdc: "0 USDC" });
    expect(formatAmount(10n ** 30n + 1n).usdc).to.equal("1000000000000000000000000.000001 USDC");
    expect(formatAmount.text(50_000n)).to.equal("50000 base units (0.05 USDC)");
  });
});
