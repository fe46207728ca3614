import { expect } from "chai";
import type { Hex } from "viem";
import { concat, getAddress, numberToHex, padHex } from "viem";
import { splitAmount } from "./price.ts";
import { sumDebits } from "./sumDebits.ts";
import { MalformedDebitsError, unpackDebits } from "./unpackDebits.ts";

const buyerA = getAddress("0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B");
const buyerB = getAddress("0x2222222222222222222222222222222222222222");
const entry = (buyer: Hex, n: number, amount: bigint) =>
  concat([buyer, padHex(numberToHex(n), { size: 32 }), numberToHex(amount, { size: 16 })]);

describe("sumDebits", function () {
  it("totals a log's packed debits as unpackDebits and splitAmount do, per buyer too", function () {
    const amounts = [1_200n, 19n, 2n ** 128n - 1n, 199n, 3_333n];
    const debits = concat(amounts.map((amount, n) => entry(n % 2 === 0 ? buyerA : buyerB, n, amount)));
    const entries = unpackDebits(debits);
    const sums = sumDebits(debits, 333);
    expect(sums.calls).to.equal(5);
    expect(sums.gross).to.equal(entries.reduce((sum, d) => sum + d.amount, 0n));
    expect(sums.treasury).to.equal(entries.reduce((sum, d) => sum + splitAmount(d.amount, 333).treasury, 0n));
    // Floored per debit, as the escrow credits it: not floor(gross × fee).
    expect(sums.treasury).to.not.equal(splitAmount(sums.gross, 333).treasury);
    expect([...sums.spentBy]).to.deep.equal([
      [buyerA.toLowerCase(), 1_200n + 2n ** 128n - 1n + 3_333n],
      [buyerB.toLowerCase(), 19n + 199n],
    ]);
  });

  it("totals an empty log to nothing, and refuses bytes that are not whole debits", function () {
    expect(sumDebits("0x", 500)).to.deep.equal({ calls: 0, gross: 0n, treasury: 0n, spentBy: new Map() });
    expect(() => sumDebits(`${entry(buyerA, 0, 1n)}00`, 500)).to.throw(MalformedDebitsError);
  });
});
