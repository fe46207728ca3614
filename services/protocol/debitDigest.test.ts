import { expect } from "chai";
import fc from "fast-check";
import { getAddress, hashTypedData, maxUint256, toHex } from "viem";
import { debitDigest } from "./debitDigest.ts";
import { debitTypedData } from "./typedData.ts";

const escrow = getAddress("0x5fbdb2315678afecb367f032d93f642f64180aa3");

const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => toHex(b));
const uint = fc.bigInt({ min: 0n, max: maxUint256 }).map(String);

describe("debitDigest", function () {
  it("equals viem hashTypedData of the same debit authorization, for any field values", function () {
    fc.assert(
      fc.property(
        hex(20),
        hex(32),
        uint,
        uint,
        uint,
        hex(32),
        (buyer, resourceId, maxAmount, validAfter, validBefore, nonce) => {
          const authorization = { buyer: getAddress(buyer), resourceId, maxAmount, validAfter, validBefore, nonce };
          expect(debitDigest(authorization, escrow)).to.equal(hashTypedData(debitTypedData(authorization, escrow)));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("changes with the escrow address (the domain is part of the digest)", function () {
    const authorization = {
      buyer: escrow,
      resourceId: `0x${"11".repeat(32)}` as const,
      maxAmount: "1",
      validAfter: "0",
      validBefore: "2",
      nonce: `0x${"22".repeat(32)}` as const,
    };
    const other = getAddress("0xe7f1725e7734ce288f8367e1bb143e90bb3f0512");
    expect(debitDigest(authorization, escrow)).not.to.equal(debitDigest(authorization, other));
  });
});
