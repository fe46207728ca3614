import { expect } from "chai";
import type { Hex } from "viem";
import { bitmapNonce } from "./bitmapNonce.ts";
import { strikeKeyOf } from "./strikeKey.ts";

const BUYER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const OTHER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

// The registry computes the same key (strikeKeyOf): test/contracts/ResourceRegistry/strikes.test.ts holds them equal.
describe("strikeKeyOf", function () {
  it("tells apart two buyers' calls with the same nonce, as their nonce books do", function () {
    const nonce = bitmapNonce(0);
    expect(strikeKeyOf({ buyer: BUYER, nonce })).to.not.equal(strikeKeyOf({ buyer: OTHER, nonce }));
    expect(strikeKeyOf({ buyer: BUYER, nonce })).to.not.equal(strikeKeyOf({ buyer: BUYER, nonce: bitmapNonce(1) }));
  });

  it("is the same for any spelling of the buyer's address", function () {
    const nonce = bitmapNonce(7);
    expect(strikeKeyOf({ buyer: BUYER.toLowerCase(), nonce })).to.equal(strikeKeyOf({ buyer: BUYER, nonce }));
  });

  it("refuses a buyer that is not an address and a nonce that is not 32 bytes", function () {
    expect(() => strikeKeyOf({ buyer: "0x1234", nonce: bitmapNonce(0) })).to.throw(/Address "0x1234" is invalid/);
    expect(() => strikeKeyOf({ buyer: BUYER, nonce: "0x1234" as Hex })).to.throw(/size/i);
  });
});
