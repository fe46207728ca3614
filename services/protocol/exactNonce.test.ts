import { expect } from "chai";
import { keccak256, toHex } from "viem";
import { EXACT_NONCE_TAG, exactNonceAllows, resourceBoundNonce } from "./exactNonce.ts";
import { randomNonce } from "./resourceId.ts";

describe("resource-bound exact nonces", function () {
  const resource = keccak256(toHex("resource a"));
  const other = keccak256(toHex("resource b"));

  it("carries the tag and the resource's first 12 bytes, and differs every time", function () {
    const nonce = resourceBoundNonce(resource);
    expect(nonce).to.match(/^0x[0-9a-f]{64}$/);
    expect(nonce.slice(0, 10)).to.equal(EXACT_NONCE_TAG);
    expect(nonce.slice(10, 34)).to.equal(resource.slice(2, 26));
    expect(resourceBoundNonce(resource)).to.not.equal(nonce);
  });

  it("pays only its own resource", function () {
    const nonce = resourceBoundNonce(resource);
    expect(exactNonceAllows(nonce, resource)).to.equal(true);
    expect(exactNonceAllows(nonce, other)).to.equal(false);
  });

  it("leaves an untagged (stock client's random) nonce unbound", function () {
    const nonce = randomNonce();
    expect(exactNonceAllows(`0x00${nonce.slice(4)}`, resource)).to.equal(true);
    expect(exactNonceAllows(`0x00${nonce.slice(4)}`, other)).to.equal(true);
  });
});
