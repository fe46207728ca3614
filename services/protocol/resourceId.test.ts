import { expect } from "chai";
import fc from "fast-check";
import { concat, keccak256, numberToHex, pad, toHex } from "viem";
import { creator } from "../../testkit/protocol/fixtures.ts";
import { randomNonce, resourceIdOf } from "./resourceId.ts";

function manualResourceId(address: string, slug: string) {
  const bytes = new TextEncoder().encode(slug);
  const padded = new Uint8Array(Math.ceil(bytes.length / 32) * 32);
  padded.set(bytes);
  const word = (value: number) => numberToHex(value, { size: 32 });
  return keccak256(concat([pad(address.toLowerCase() as `0x${string}`), word(64), word(bytes.length), toHex(padded)]));
}

describe("resourceIdOf", () => {
  it("is keccak256(abi.encode(address, string))", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 80 }), (slug) => {
        expect(resourceIdOf(creator, slug)).to.equal(manualResourceId(creator, slug));
      }),
      { numRuns: 50 },
    );
  });

  it("is lowercase bytes32", () => expect(resourceIdOf(creator, "weather")).to.match(/^0x[0-9a-f]{64}$/));

  it("ignores the case of the creator address", () => {
    expect(resourceIdOf(creator.toLowerCase(), "weather")).to.equal(resourceIdOf(creator, "weather"));
  });

  it("differs between slugs and between creators", () => {
    expect(resourceIdOf(creator, "weather")).to.not.equal(resourceIdOf(creator, "weather2"));
    expect(resourceIdOf(creator, "weather")).to.not.equal(resourceIdOf(`0x${"11".repeat(20)}`, "weather"));
  });

  it("refuses a malformed creator", () => expect(() => resourceIdOf("0x1234", "weather")).to.throw());
});

describe("randomNonce", () => {
  it("is 32 lowercase hex bytes, fresh each time", () => {
    const nonces = Array.from({ length: 64 }, randomNonce);
    for (const nonce of nonces) expect(nonce).to.match(/^0x[0-9a-f]{64}$/);
    expect(new Set(nonces).size).to.equal(nonces.length);
  });
});
