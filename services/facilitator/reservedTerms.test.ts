import { expect } from "chai";
import type { Hex } from "viem";
import { createReservedTerms } from "./reservedTerms.ts";

const terms = {
  resourceId: `0x${"11".repeat(32)}` as Hex,
  buyer: "0x00000000000000000000000000000000000000b1" as const,
  cap: 50_000n,
  validBefore: 1_800_000_000,
  signedBy: "key" as const,
};
const key = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as Hex;

describe("reserved terms", function () {
  it("gives a settle its verify's terms once, whatever the idemKey's case", function () {
    const book = createReservedTerms();
    book.remember(key(0xab), terms);
    const upper = key(0xab).toUpperCase().replace("0X", "0x");
    expect(book.take({ idemKey: upper, buyer: terms.buyer })).to.deep.equal(terms);
    expect(book.take({ idemKey: key(0xab), buyer: terms.buyer })).to.equal(undefined);
  });

  it("keeps two buyers' terms of one nonce apart", function () {
    const book = createReservedTerms();
    const other = { ...terms, buyer: "0x00000000000000000000000000000000000000b2" as const };
    book.remember(key(0xab), terms);
    book.remember(key(0xab), other);
    expect(book.take({ idemKey: key(0xab), buyer: other.buyer })).to.deep.equal(other);
    expect(book.take({ idemKey: key(0xab), buyer: terms.buyer })).to.deep.equal(terms);
  });

  it("forgets the oldest terms beyond its bound, so memory stays bounded", function () {
    const book = createReservedTerms(3);
    for (let n = 1; n <= 5; n++) book.remember(key(n), terms);
    expect(book.size).to.equal(3);
    const take = (n: number) => book.take({ idemKey: key(n), buyer: terms.buyer });
    expect(take(1)).to.equal(undefined);
    expect(take(2)).to.equal(undefined);
    expect(take(5)).to.deep.equal(terms);
  });
});
