import { expect } from "chai";
import type { Hex } from "viem";
import { bondNonce, bondNonceAllows } from "./bondNonce.ts";
import { resourceIdOf } from "./resourceId.ts";

const CREATOR = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

// The registry applies the same rule (BondNonceBoundToOtherResource): test/contracts/attacks/bondAuthorizationReplay.
describe("bondNonce", function () {
  const weather = resourceIdOf(CREATOR, "weather");
  const maps = resourceIdOf(CREATOR, "maps");

  it("carries the first 16 bytes of the resource id, then 16 fresh bytes", function () {
    const a = bondNonce(weather);
    expect(a).to.match(/^0x[0-9a-f]{64}$/);
    expect(a.slice(0, 34)).to.equal(weather.slice(0, 34));
    expect(bondNonce(weather)).to.not.equal(a);
  });

  it("allows the resource it was made for and no other of the same creator", function () {
    const nonce = bondNonce(weather);
    expect(bondNonceAllows(nonce, weather)).to.equal(true);
    expect(bondNonceAllows(nonce.toUpperCase().replace("0X", "0x") as Hex, weather)).to.equal(true);
    expect(bondNonceAllows(nonce, maps)).to.equal(false);
    expect(bondNonceAllows(`0x${"11".repeat(32)}`, weather)).to.equal(false);
    expect(bondNonceAllows(weather.slice(0, 34) as Hex, weather), "a nonce that is not 32 bytes").to.equal(false);
  });
});
