import { expect } from "chai";
import type { Hex, Log } from "viem";
import { concat, encodeAbiParameters, getAddress, numberToHex, padHex } from "viem";
import { bitmapNonce, bitmapNonceIndex, MAX_BITMAP_NONCE_INDEX } from "./bitmapNonce.ts";
import { BATCH_DEBITED_TOPIC, parseDebits } from "./parseDebits.ts";
import { MalformedDebitsError, unpackDebits } from "./unpackDebits.ts";

const escrow = getAddress("0x00000000000000000000000000000000000e5c30");
const resourceId = `0x${"aa".repeat(32)}` as Hex;
const buyerA = getAddress("0x1111111111111111111111111111111111111111");
const buyerB = getAddress("0x2222222222222222222222222222222222222222");
const entry = (buyer: Hex, nonce: Hex, amount: bigint) => concat([buyer, nonce, numberToHex(amount, { size: 16 })]);

function batchLog(debits: Hex, address: Hex = escrow, feeBps = 500): Log {
  return {
    address,
    topics: [BATCH_DEBITED_TOPIC, resourceId],
    data: encodeAbiParameters([{ type: "uint16" }, { type: "bytes" }], [feeBps, debits]),
    blockNumber: 7n,
    blockHash: padHex("0x07"),
    transactionHash: padHex("0x70"),
    transactionIndex: 0,
    logIndex: 3,
    removed: false,
  } as Log;
}

describe("parseDebits, unpackDebits and bitmap nonces", function () {
  it("decodes every packed debit of the escrow's BatchDebited logs, in order, with its fee share", function () {
    const debits = parseDebits(
      [
        batchLog(concat([entry(buyerA, bitmapNonce(0), 1_200n), entry(buyerB, `0x${"ee".repeat(32)}`, 19n)])),
        batchLog(entry(buyerA, bitmapNonce(1), 1_000n), getAddress("0x000000000000000000000000000000000000dead")),
      ],
      escrow,
    );
    expect(
      debits.map(({ buyer, nonce, amount, treasuryAmount, index }) => ({
        buyer,
        nonce,
        amount,
        treasuryAmount,
        index,
      })),
    ).to.deep.equal([
      { buyer: buyerA, nonce: bitmapNonce(0), amount: 1_200n, treasuryAmount: 60n, index: 0 },
      { buyer: buyerB, nonce: `0x${"ee".repeat(32)}`, amount: 19n, treasuryAmount: 0n, index: 1 },
    ]);
    expect(debits[0]).to.include({ resourceId, feeBps: 500, blockNumber: 7n, logIndex: 3 });
  });

  it("refuses debits that are not whole 68-byte entries", function () {
    expect(() => unpackDebits(`0x${"00".repeat(67)}`)).to.throw(MalformedDebitsError, /67 bytes/);
    expect(unpackDebits("0x")).to.deep.equal([]);
  });

  it("encodes an index behind the tag and 24 zero bytes, and tells it from a random nonce", function () {
    expect(bitmapNonce(0x0102)).to.equal(`0x717c8f68${"00".repeat(24)}00000102`);
    expect(bitmapNonceIndex(bitmapNonce(MAX_BITMAP_NONCE_INDEX))).to.equal(MAX_BITMAP_NONCE_INDEX);
    expect(bitmapNonceIndex(`0x717c8f68${"00".repeat(23)}0100000102`)).to.equal(null);
    expect(bitmapNonceIndex(`0x${"ee".repeat(32)}`)).to.equal(null);
    expect(() => bitmapNonce(-1)).to.throw(RangeError);
    expect(() => bitmapNonce(2 ** 32)).to.throw(RangeError);
  });
});
