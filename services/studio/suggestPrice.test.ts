import { expect } from "chai";
import fc from "fast-check";
import { suggestPrice } from "./suggestPrice.ts";

describe("suggestPrice", () => {
  it("prices from the measured p95 and the largest response", () => {
    expect(suggestPrice({ maxResponseBytes: 1024, p95Ms: 2 })).to.deep.equal({
      base: "1100",
      perKB: "100",
      max: "1200",
    });
  });

  it("raises the base to the floor, and the cap with it, so the largest answer still fits", () => {
    expect(suggestPrice({ maxResponseBytes: 1024, p95Ms: 2, minimumBase: 7_680n })).to.deep.equal({
      base: "7680",
      perKB: "100",
      max: "7780",
    });
  });

  it("never suggests a base or a cap below the floor, and leaves a price above it as measured", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.double({ min: 0, max: 100_000, noNaN: true }),
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        (maxResponseBytes, p95Ms, minimumBase) => {
          const measured = suggestPrice({ maxResponseBytes, p95Ms });
          const floored = suggestPrice({ maxResponseBytes, p95Ms, minimumBase });
          expect(BigInt(floored.base) >= minimumBase && BigInt(floored.max) >= minimumBase).to.equal(true);
          if (BigInt(measured.base) >= minimumBase) expect(floored).to.deep.equal(measured);
          else expect(floored.base).to.equal(minimumBase.toString());
          expect(BigInt(floored.max) - BigInt(floored.base)).to.equal(BigInt(measured.max) - BigInt(measured.base));
        },
      ),
    );
  });
});
