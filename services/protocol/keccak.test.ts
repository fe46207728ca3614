import { expect } from "chai";
import fc from "fast-check";
import { keccak256 } from "viem";
import { keccak256Bytes, keccak256Hex } from "./keccak.ts";

describe("keccak256Bytes / keccak256Hex", function () {
  it("equal viem's keccak256 for any input, across the 136-byte block boundary", function () {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (data) => {
        expect(keccak256Hex(data)).to.equal(keccak256(data));
        expect(keccak256Bytes(data)).to.deep.equal(keccak256(data, "bytes"));
      }),
      { numRuns: 300 },
    );
    for (const length of [0, 135, 136, 137, 272])
      expect(keccak256Hex(new Uint8Array(length).fill(length % 251))).to.equal(
        keccak256(new Uint8Array(length).fill(length % 251)),
      );
  });

  it("is the empty input's known digest", function () {
    expect(keccak256Hex(new Uint8Array())).to.equal(
      "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
    );
  });
});
