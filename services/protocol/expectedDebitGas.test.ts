import { expect } from "chai";
import { bitmapNonce } from "./bitmapNonce.ts";
import { BASE_FEE_FLOOR_WEI, SETTLEMENT_MARGIN_BPS } from "./constants.ts";
import { expectedDebitGas } from "./expectedDebitGas.ts";
import { priceFloor } from "./priceFloor.ts";
import { randomNonce } from "./resourceId.ts";

describe("expectedDebitGas", () => {
  it("a bitmap nonce shares its buyer's word; any other nonce pays for a slot of its own", () => {
    expect(expectedDebitGas(bitmapNonce(0))).to.equal(16_000);
    expect(expectedDebitGas(bitmapNonce(2 ** 32 - 1))).to.equal(16_000);
    expect(expectedDebitGas(randomNonce())).to.equal(38_100);
  });

  it("at the test network's least base fee and a 5% fee, a random nonce needs a base of 18,300 where a bitmap nonce needs 7,680", () => {
    const floorOf = (nonce: `0x${string}`) =>
      priceFloor({
        gasPerDebit: expectedDebitGas(nonce),
        baseFeeWei: BASE_FEE_FLOOR_WEI,
        feeBps: 500,
        marginBps: SETTLEMENT_MARGIN_BPS,
      }).minimumBase;
    expect(floorOf(bitmapNonce(5))).to.equal(7_680n);
    expect(floorOf(randomNonce())).to.equal(18_300n);
  });
});
