import { expect } from "chai";
import fc from "fast-check";
import { BASE_FEE_FLOOR_WEI, SETTLEMENT_GAS_PER_DEBIT, SETTLEMENT_MARGIN_BPS } from "./constants.ts";
import { InvalidPriceInputError } from "./errors.ts";
import { gasCostInTokenUnits } from "./gasCostInTokenUnits.ts";
import { splitAmount } from "./price.ts";
import { PriceFloorUnreachableError, priceFloor } from "./priceFloor.ts";

/** What the treasury must earn per call: the settlement cost with the margin, rounded up. */
const needed = (gas: bigint, baseFee: bigint, margin: bigint) =>
  (gasCostInTokenUnits(gas, baseFee) * (10_000n + margin) + 9_999n) / 10_000n;

describe("priceFloor", () => {
  it("at the test network's least base fee, 16k gas per debit, a 5% fee and a 20% margin: 7680", () => {
    expect(
      priceFloor({ gasPerDebit: 16_000, baseFeeWei: BASE_FEE_FLOOR_WEI, feeBps: 500, marginBps: 2_000 }),
    ).to.deep.equal({ minimumBase: 7_680n, costPerCallUnits: 320n, treasuryNeededUnits: 384n });
    expect(splitAmount(7_680n, 500).treasury).to.equal(384n);
    expect(splitAmount(7_679n, 500).treasury).to.equal(383n);
  });

  it("rounds the cost up: one wei above 20 gwei costs a whole base unit more", () => {
    const floor = priceFloor({ gasPerDebit: 16_000, baseFeeWei: BASE_FEE_FLOOR_WEI + 1n, feeBps: 500, marginBps: 0 });
    expect(floor).to.deep.equal({ minimumBase: 6_420n, costPerCallUnits: 321n, treasuryNeededUnits: 321n });
  });

  it("is the least base whose treasury share covers the cost with the margin: base − 1 does not", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10_000_000n }),
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.integer({ min: 1, max: 4_999 }),
        fc.integer({ min: 0, max: 50_000 }),
        (gas, baseFee, feeBps, marginBps) => {
          const { minimumBase, treasuryNeededUnits } = priceFloor({
            gasPerDebit: gas,
            baseFeeWei: baseFee,
            feeBps,
            marginBps,
          });
          expect(treasuryNeededUnits).to.equal(needed(gas, baseFee, BigInt(marginBps)));
          expect(splitAmount(minimumBase, feeBps).treasury >= treasuryNeededUnits).to.equal(true);
          if (minimumBase > 0n)
            expect(splitAmount(minimumBase - 1n, feeBps).treasury < treasuryNeededUnits).to.equal(true);
        },
      ),
    );
  });

  it("rises with the base fee", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.bigInt({ min: 0n, max: 10n ** 12n }), (a, b) => {
        const at = (baseFeeWei: bigint) =>
          priceFloor({
            gasPerDebit: SETTLEMENT_GAS_PER_DEBIT,
            baseFeeWei,
            feeBps: 500,
            marginBps: SETTLEMENT_MARGIN_BPS,
          }).minimumBase;
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(at(low) <= at(high)).to.equal(true);
      }),
    );
  });

  it("is 0 when settlement costs nothing (no gas, or a zero base fee), whatever the fee", () => {
    expect(
      priceFloor({ gasPerDebit: 0, baseFeeWei: BASE_FEE_FLOOR_WEI, feeBps: 0, marginBps: 2_000 }).minimumBase,
    ).to.equal(0n);
    expect(priceFloor({ gasPerDebit: 16_000, baseFeeWei: 0n, feeBps: 500, marginBps: 2_000 }).minimumBase).to.equal(0n);
  });

  it("refuses when the escrow takes no fee and settlement costs something: no price covers it", () => {
    expect(() => priceFloor({ gasPerDebit: 16_000, baseFeeWei: BASE_FEE_FLOOR_WEI, feeBps: 0, marginBps: 0 }))
      .to.throw(PriceFloorUnreachableError)
      .with.property("treasuryNeededUnits", 320n);
  });

  it("refuses malformed inputs with the parameter named", () => {
    const good = { gasPerDebit: 16_000, baseFeeWei: BASE_FEE_FLOOR_WEI, feeBps: 500, marginBps: 2_000 };
    for (const [parameter, value] of [
      ["gasPerDebit", -1],
      ["gasPerDebit", 1.5],
      ["baseFeeWei", -1n],
      ["feeBps", 5_000],
      ["feeBps", -1],
      ["marginBps", Number.NaN],
    ] as const) {
      expect(() => priceFloor({ ...good, [parameter]: value }), `${parameter} = ${String(value)}`)
        .to.throw(InvalidPriceInputError)
        .with.property("parameter", parameter);
    }
  });
});
