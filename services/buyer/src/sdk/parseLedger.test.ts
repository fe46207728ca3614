import { expect } from "chai";
import type { Address } from "viem";
import { LedgerUnreadableError, lineHash, parseLedger } from "./parseLedger.ts";

const owner = {
  chainId: 5042002,
  escrow: "0x2222222222222222222222222222222222222222" as Address,
  buyer: "0x1111111111111111111111111111111111111111" as Address,
};
const key = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const resourceId = `0x${"aa".repeat(32)}`;
const opened = { kind: "opened", version: 1, ...owner, fromBlock: "10", at: 1 };

/** Ledger text from records, each linked to the line before it as the ledger writes them. */
function ledger(records: object[]): string {
  let previous = "";
  return records
    .map((record, index) => {
      const line = JSON.stringify(index === 0 ? record : { ...record, prev: lineHash(previous) });
      previous = line;
      return `${line}\n`;
    })
    .join("");
}

const hold = (n: number, cap = "1200") => ({
  kind: "hold",
  idemKey: key(n),
  resourceId,
  cap,
  validBefore: "2000000000",
  signedAt: 5,
});
const debit = (n: number, amount = "1200") => ({
  kind: "debit",
  idemKey: key(n),
  resourceId,
  amount,
  block: "12",
  at: 6,
  transaction: `0x${"cc".repeat(32)}`,
});

function refusal(text: string): string {
  try {
    parseLedger("ledger.jsonl", text, owner);
  } catch (error) {
    expect(error).to.be.instanceOf(LedgerUnreadableError);
    expect((error as LedgerUnreadableError).code).to.equal("ledger_unreadable");
    return (error as Error).message;
  }
  throw new Error("the ledger was accepted");
}

describe("parseLedger: the spend ledger is checked on every load", function () {
  it("folds holds, debits, releases and scans", function () {
    const state = parseLedger(
      "ledger.jsonl",
      ledger([
        opened,
        hold(1),
        hold(2),
        debit(1, "1000"),
        { kind: "release", idemKey: key(2), at: 7 },
        { kind: "scanned", toBlock: "20", at: 8 },
      ]),
      owner,
    );
    expect(state.scannedTo).to.equal(20n);
    expect([...state.holds.keys()]).to.deep.equal([key(1), key(2)]);
    expect(state.debits.get(key(1) as `0x${string}`)?.amount).to.equal("1000");
    expect([...state.released]).to.deep.equal([key(2)]);
  });

  it("refuses a negative, fractional or numeric amount, a bad address and an unknown field", function () {
    for (const bad of ["-1200", "12.5", "01200", 1200])
      expect(refusal(ledger([opened, debit(1, bad as string)]))).to.match(/invalid record \(line 2, amount/);
    expect(refusal(ledger([{ ...opened, buyer: "0x12" }]))).to.match(/invalid record \(line 1, buyer/);
    expect(refusal(ledger([opened, { ...hold(1), note: "x" }]))).to.match(/invalid record/);
  });

  it("refuses an edited, removed or reordered line: each names the hash of the one before", function () {
    const text = ledger([opened, hold(1), debit(1), hold(2)]);
    const lines = text.split("\n");
    expect(refusal(text.replace('"amount":"1200"', '"amount":"1"'))).to.match(/was edited: line 4/);
    expect(refusal([lines[0], lines[2], lines[3], ""].join("\n"))).to.match(/was edited: line 2/);
    expect(refusal([lines[0], lines[2], lines[1], lines[3], ""].join("\n"))).to.match(/was edited/);
  });

  it("refuses another key's ledger, a missing opening, a torn last line and an empty file", function () {
    expect(refusal(ledger([{ ...opened, buyer: "0x3333333333333333333333333333333333333333" }]))).to.match(
      /another chain, escrow or buyer/,
    );
    expect(refusal(ledger([{ ...hold(1), prev: lineHash("") }]))).to.match(/does not start with its opening record/);
    expect(refusal(ledger([opened, hold(1)]).slice(0, -5))).to.match(/complete line/);
    expect(refusal("")).to.match(/complete line|empty/);
  });

  it("refuses a payment held or debited twice, and a release of a payment it never held", function () {
    expect(refusal(ledger([opened, hold(1), hold(1)]))).to.match(/holds an idemKey twice/);
    expect(refusal(ledger([opened, debit(1), debit(1)]))).to.match(/debits an idemKey twice/);
    expect(refusal(ledger([opened, { kind: "release", idemKey: key(9), at: 1 }]))).to.match(/releases a payment/);
  });

  it("says how to fix it: restore, or move it aside and let the chain rebuild the last day", function () {
    expect(refusal(ledger([opened, debit(1, "-5")]))).to.include('mv "ledger.jsonl" "ledger.jsonl.bad"');
  });
});
