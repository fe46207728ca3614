import { expect } from "chai";
import fc from "fast-check";
import { maxUint256 } from "viem";
import {
  addressSchema,
  amountSchema,
  bytes32Schema,
  httpUrlSchema,
  isoTimestampSchema,
  positiveAmountSchema,
  scoreSchema,
  signatureSchema,
} from "./primitives.ts";

describe("primitives", () => {
  describe("amountSchema", () => {
    for (const value of ["0", "1", "50000", maxUint256.toString()]) {
      it(`accepts ${value.slice(0, 12)}`, () => expect(amountSchema.parse(value)).to.equal(value));
    }

    for (const value of [
      "01",
      "00",
      "-1",
      "1.5",
      "1e3",
      "0x10",
      " 1",
      "1 ",
      "",
      (maxUint256 + 1n).toString(),
      "9".repeat(200),
    ]) {
      it(`rejects ${JSON.stringify(value.slice(0, 20))}`, () =>
        expect(amountSchema.safeParse(value).success).to.equal(false));
    }

    it("rejects a JSON number", () => expect(amountSchema.safeParse(1).success).to.equal(false));

    it("accepts exactly the uint256 range", () => {
      fc.assert(
        fc.property(fc.bigInt({ min: 0n, max: 2n ** 260n }), (value) => {
          expect(amountSchema.safeParse(value.toString()).success).to.equal(value <= maxUint256);
        }),
      );
    });
  });

  describe("positiveAmountSchema", () => {
    it("accepts 1 and refuses 0", () => {
      expect(positiveAmountSchema.parse("1")).to.equal("1");
      expect(positiveAmountSchema.safeParse("0").success).to.equal(false);
    });

    for (const value of ["abc", "1.5", "1e3", ""]) {
      it(`refuses ${JSON.stringify(value)} without throwing (its refinement runs only on a parsed amount)`, () =>
        expect(positiveAmountSchema.safeParse(value).success).to.equal(false));
    }
  });

  describe("addressSchema", () => {
    it("checksums lowercase and uppercase input", () => {
      const checksummed = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
      expect(addressSchema.parse(checksummed.toLowerCase())).to.equal(checksummed);
      expect(addressSchema.parse(`0x${checksummed.slice(2).toUpperCase()}`)).to.equal(checksummed);
    });

    for (const value of [
      "0x123",
      `0x${"g".repeat(40)}`,
      "f39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
      `0x${"a".repeat(41)}`,
    ]) {
      it(`rejects ${value}`, () => expect(addressSchema.safeParse(value).success).to.equal(false));
    }
  });

  describe("bytes32Schema", () => {
    it("lowercases", () => expect(bytes32Schema.parse(`0x${"AB".repeat(32)}`)).to.equal(`0x${"ab".repeat(32)}`));

    for (const value of [`0x${"a".repeat(63)}`, `0x${"a".repeat(65)}`, "a".repeat(66), "{{RESOURCE_ID}}"]) {
      it(`rejects ${value}`, () => expect(bytes32Schema.safeParse(value).success).to.equal(false));
    }
  });

  describe("signatureSchema", () => {
    it("accepts 65 bytes and lowercases them", () =>
      expect(signatureSchema.parse(`0x${"AA".repeat(65)}`)).to.equal(`0x${"aa".repeat(65)}`));
    it("accepts a longer contract-wallet signature", () =>
      expect(signatureSchema.safeParse(`0x${"aa".repeat(300)}`).success).to.equal(true));
    it("rejects 64 bytes", () => expect(signatureSchema.safeParse(`0x${"aa".repeat(64)}`).success).to.equal(false));
    it("rejects an odd number of digits", () =>
      expect(signatureSchema.safeParse(`0x${"a".repeat(131)}`).success).to.equal(false));
  });

  describe("scoreSchema", () => {
    for (const value of [0, 55.5, 100])
      it(`accepts ${value}`, () => expect(scoreSchema.safeParse(value).success).to.equal(true));
    for (const value of [-1, 100.01, Number.NaN, Number.POSITIVE_INFINITY, "50"]) {
      it(`rejects ${String(value)}`, () => expect(scoreSchema.safeParse(value).success).to.equal(false));
    }
  });

  describe("isoTimestampSchema", () => {
    for (const value of ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00.123Z"]) {
      it(`accepts ${value}`, () => expect(isoTimestampSchema.safeParse(value).success).to.equal(true));
    }
    for (const value of ["2026-01-01", "2026-01-01T00:00:00+01:00", "1767225600"]) {
      it(`rejects ${value}`, () => expect(isoTimestampSchema.safeParse(value).success).to.equal(false));
    }
  });

  describe("httpUrlSchema", () => {
    it("accepts http and https", () => {
      expect(httpUrlSchema.safeParse("http://127.0.0.1:8080/call").success).to.equal(true);
      expect(httpUrlSchema.safeParse("https://weather.example/call").success).to.equal(true);
    });
    it("rejects other protocols and relative URLs", () => {
      expect(httpUrlSchema.safeParse("ftp://weather.example/call").success).to.equal(false);
      expect(httpUrlSchema.safeParse("/call").success).to.equal(false);
    });
  });
});
