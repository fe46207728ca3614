import { expect } from "chai";
import {
  bitmapNonceIndex,
  LEDGER_NONCE_INDEXES,
  MAX_BITMAP_NONCE_INDEX,
  NONCES_PER_WORD,
} from "../../../protocol/bitmapNonce.ts";
import { createProcessNonces, PROCESS_WORDS } from "./processNonces.ts";

/** The first index of the process word at `offset`. */
const at = (offset: number) => (PROCESS_WORDS.first + offset) * NONCES_PER_WORD;

const ESCROW = "0x8A791620dd6260079BF849Dc5567aDC3F2FdC318";
const BUYER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const OTHER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

describe("createProcessNonces", function () {
  it("gives each key consecutive nonces from the first index of its own random word", function () {
    const words = [10, 20];
    const nonces = createProcessNonces(() => words.shift() ?? 0);
    const indexes = (buyer: `0x${string}`) => bitmapNonceIndex(nonces.next(ESCROW, buyer));
    expect([indexes(BUYER), indexes(BUYER), indexes(OTHER)]).to.deep.equal([at(10), at(10) + 1, at(20)]);
    expect(
      bitmapNonceIndex(nonces.next(ESCROW.toLowerCase() as `0x${string}`, BUYER)),
      "one key, however spelled",
    ).to.equal(at(10) + 2);
  });

  it("moves to a new random word on skipWord, and past the last index", function () {
    const lastWord = PROCESS_WORDS.count - 1;
    const words = [3, 4, lastWord, 5];
    const nonces = createProcessNonces(() => words.shift() ?? 0);
    expect(bitmapNonceIndex(nonces.next(ESCROW, BUYER))).to.equal(at(3));
    nonces.skipWord(ESCROW, BUYER);
    expect(bitmapNonceIndex(nonces.next(ESCROW, BUYER))).to.equal(at(4));
    nonces.skipWord(ESCROW, BUYER);
    const top = Array.from({ length: NONCES_PER_WORD }, () => bitmapNonceIndex(nonces.next(ESCROW, BUYER)));
    expect(top.at(-1)).to.equal(at(lastWord + 1) - 1);
    expect(top.at(-1)).to.be.at.most(MAX_BITMAP_NONCE_INDEX);
    // The words go on upward until the index space ends, then start from a new random word.
    for (let i = at(lastWord + 1); i <= MAX_BITMAP_NONCE_INDEX; i++) nonces.next(ESCROW, BUYER);
    expect(bitmapNonceIndex(nonces.next(ESCROW, BUYER))).to.equal(at(5));
  });

  it("picks words only above the spend ledger's indexes", function () {
    expect(at(0)).to.be.at.least(LEDGER_NONCE_INDEXES);
    expect(at(-1)).to.be.below(LEDGER_NONCE_INDEXES);
    expect(at(PROCESS_WORDS.count) - 1).to.be.at.most(MAX_BITMAP_NONCE_INDEX);
    expect(at(PROCESS_WORDS.count + 1) - 1).to.be.above(MAX_BITMAP_NONCE_INDEX);
    for (let n = 0; n < 50; n++) {
      const index = bitmapNonceIndex(createProcessNonces().next(ESCROW, BUYER)) as number;
      expect(index % NONCES_PER_WORD).to.equal(0);
      expect(index).to.be.within(at(0), at(PROCESS_WORDS.count - 1));
    }
  });
});
