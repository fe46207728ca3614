import { expect } from "chai";
import fc from "fast-check";
import { InvalidPriceInputError } from "./errors.ts";
import { meteredPrice, splitAmount } from "./price.ts";

const terms = { base: 1000n, perKB: 200n, computeMultiplier: 1, cap: 50_000n };

function price(responseBytes: number, overrides: Partial<typeof terms> = {}) {
  return meteredPrice({ ...terms, ...overrides, responseBytes });
}

describe("meteredPrice", () => {
  const bytes = [
    [0, 1000n],
    [1, 1200n],
    [1024, 1200n],
    [1025, 1400n],
    [2048, 1400n],
  ] as const;
  for (const [responseBytes, expected] of bytes) {
    it(`charges ${expected} for ${responseBytes} bytes`, () => expect(price(responseBytes)).to.equal(expected));
  }

  it("stops at the cap", () => {
    expect(price(1_048_576)).to.equal(50_000n);
    expect(price(245 * 1024)).to.equal(50_000n);
    expect(price(244 * 1024)).to.equal(49_800n);
  });

  const multipliers = [
    [1.00004, 1000n],
    [1.00005, 1001n],
    [0.33333, 334n],
    [2.5, 2500n],
    [0, 0n],
  ] as const;
  for (const [computeMultiplier, expected] of multipliers) {
    it(`rounds the multiplier ${computeMultiplier} to four places and the amount up`, () =>
      expect(price(0, { computeMultiplier })).to.equal(expected));
  }

  it("accepts amounts as decimal strings", () => {
    expect(
      meteredPrice({ base: "1000", perKB: "200", computeMultiplier: 1, cap: "50000", responseBytes: 1025n }),
    ).to.equal(1400n);
  });

  const invalid = {
    "negative bytes": { responseBytes: -1 },
    "fractional bytes": { responseBytes: 1.5 },
    "NaN bytes": { responseBytes: Number.NaN },
    "negative bigint bytes": { responseBytes: -1n },
    "a NaN multiplier": { computeMultiplier: Number.NaN },
    "an infinite multiplier": { computeMultiplier: Number.POSITIVE_INFINITY },
    "a multiplier that overflows when scaled": { computeMultiplier: 1e306 },
    "a negative multiplier": { computeMultiplier: -0.5 },
    "a negative base": { base: -1n },
    "a base with a leading zero": { base: "01" },
    "a fractional perKB": { perKB: "1.5" },
    "a cap above uint256": { cap: 2n ** 256n },
  };
  for (const [name, override] of Object.entries(invalid)) {
    it(`refuses ${name}`, () =>
      expect(() => meteredPrice({ ...terms, responseBytes: 0, ...override })).to.throw(InvalidPriceInputError));
  }

  const amount = fc.bigInt({ min: 0n, max: 10n ** 12n });
  const termsArbitrary = fc.record({
    base: amount,
    perKB: amount,
    cap: amount,
    computeMultiplier: fc.double({ min: 0, max: 100, noNaN: true }),
  });

  it("never charges more than the cap", () => {
    fc.assert(
      fc.property(termsArbitrary, fc.nat(), (t, responseBytes) => {
        expect(meteredPrice({ ...t, responseBytes }) <= t.cap).to.equal(true);
      }),
    );
  });

  it("never charges less for a larger response", () => {
    fc.assert(
      fc.property(termsArbitrary, fc.nat(), fc.nat(), (t, a, b) => {
        const [small, large] = a <= b ? [a, b] : [b, a];
        expect(meteredPrice({ ...t, responseBytes: small }) <= meteredPrice({ ...t, responseBytes: large })).to.equal(
          true,
        );
      }),
    );
  });

  it("with multiplier 1 is base + perKB per started KiB, capped", () => {
    fc.assert(
      fc.property(termsArbitrary, fc.nat({ max: 10_000_000 }), (t, responseBytes) => {
        const raw = t.base + t.perKB * BigInt(Math.ceil(responseBytes / 1024));
        expect(meteredPrice({ ...t, computeMultiplier: 1, responseBytes })).to.equal(raw < t.cap ? raw : t.cap);
      }),
    );
  });
});

describe("splitAmount", () => {
  it("matches the receipt example: 1200 at 5% is 1140 + 60", () => {
    expect(splitAmount(1200n, 500)).to.deep.equal({ creator: 1140n, treasury: 60n });
  });

  it("rounds the treasury leg down", () => {
    expect(splitAmount("999", 500)).to.deep.equal({ creator: 950n, treasury: 49n });
    expect(splitAmount(1n, 4999)).to.deep.equal({ creator: 1n, treasury: 0n });
  });

  it("gives everything to the creator at fee 0", () =>
    expect(splitAmount(77n, 0)).to.deep.equal({ creator: 77n, treasury: 0n }));

  for (const feeBps of [5000, 10_000, -1, 1.5, Number.NaN]) {
    it(`refuses feeBps ${feeBps}`, () => expect(() => splitAmount(100n, feeBps)).to.throw(InvalidPriceInputError));
  }

  it("refuses a malformed amount", () => expect(() => splitAmount("-5", 100)).to.throw(InvalidPriceInputError));

  it("conserves the amount and floors the treasury leg", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 128n }), fc.integer({ min: 0, max: 4999 }), (amount, feeBps) => {
        const { creator, treasury } = splitAmount(amount, feeBps);
        expect(creator + treasury).to.equal(amount);
        expect(treasury * 10_000n <= amount * BigInt(feeBps)).to.equal(true);
        expect((treasury + 1n) * 10_000n > amount * BigInt(feeBps)).to.equal(true);
        expect(creator >= treasury).to.equal(true);
      }),
    );
  });
});
