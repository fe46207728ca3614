import { expect } from "chai";
import type { Address } from "viem";
import type { EscrowEvent } from "./escrowEvents.ts";
import type { BookedBuyer } from "./foldEscrowEvents.ts";
import { foldEscrowEvents } from "./foldEscrowEvents.ts";

const BUYER: Address = "0x00000000000000000000000000000000000000Aa";
const KEY = BUYER.toLowerCase();
const NONCE = `0x${"11".repeat(32)}` as const;

const debit = (amount: bigint, timestamp: bigint, block = 5n, fromBalance = true): EscrowEvent => ({
  kind: "debited",
  buyer: BUYER,
  block,
  nonce: NONCE,
  amount,
  fromBalance,
  timestamp,
});

function fold(events: EscrowEvent[], start?: BookedBuyer): { buyer: BookedBuyer | undefined; changed: Set<string> } {
  const buyers = new Map<string, BookedBuyer>(start ? [[KEY, start]] : []);
  const changed = foldEscrowEvents(buyers, events);
  return { buyer: buyers.get(KEY), changed };
}

describe("foldEscrowEvents", function () {
  it("keeps the balance a deposit or withdrawal reports, less debits from it", function () {
    const { buyer, changed } = fold([
      { kind: "deposited", buyer: BUYER, block: 1n, balance: 1_000n },
      debit(300n, 100n, 2n),
      { kind: "deposited", buyer: BUYER, block: 3n, balance: 1_700n },
    ]);
    expect(buyer?.balance).to.equal(1_700n);
    expect(buyer?.changedBlock).to.equal(3n);
    expect([...changed]).to.deep.equal([KEY]);
    expect(
      fold([{ kind: "deposited", buyer: BUYER, block: 1n, balance: 1_000n }, debit(300n, 100n)]).buyer?.balance,
    ).to.equal(700n);
  });

  it("an exact settlement spends no escrow balance and counts against no limit", function () {
    const { buyer, changed } = fold([debit(300n, 100n, 2n, false)]);
    expect(buyer).to.equal(undefined);
    expect(changed.size).to.equal(0);
  });

  it("holds a requested withdrawal until it is paid, then takes the balance the escrow reports", function () {
    const requested = fold([
      { kind: "deposited", buyer: BUYER, block: 1n, balance: 1_000n },
      { kind: "withdrawalRequested", buyer: BUYER, block: 2n, amount: 400n },
      { kind: "withdrawalRequested", buyer: BUYER, block: 3n, amount: 600n },
    ]).buyer;
    expect(requested).to.deep.include({ balance: 1_000n, pendingWithdrawal: 600n });
    const paid = fold([{ kind: "withdrawn", buyer: BUYER, block: 9n, balance: 400n }], requested).buyer;
    expect(paid).to.deep.include({ balance: 400n, pendingWithdrawal: 0n });
  });

  it("counts debits in the spend limit's window, restarting it at the block's time once the period has passed", function () {
    const limited = fold([
      { kind: "deposited", buyer: BUYER, block: 1n, balance: 10_000n },
      { kind: "spendLimitSet", buyer: BUYER, block: 1n, limit: 1_000n, period: 60n },
      debit(100n, 1_000n),
      debit(200n, 1_030n),
    ]).buyer;
    expect(limited?.spendLimit).to.deep.include({ windowStart: 1_000n, spent: 300n });
    const next = fold([debit(50n, 1_060n)], limited).buyer;
    expect(next?.spendLimit).to.deep.include({ windowStart: 1_060n, spent: 50n });
    expect(next?.balance).to.equal(10_000n - 350n);
  });

  it("leaves the window alone while there is no limit, and carries it over when one is set", function () {
    const open = fold([{ kind: "deposited", buyer: BUYER, block: 1n, balance: 10_000n }, debit(100n, 1_000n)]).buyer;
    expect(open?.spendLimit).to.deep.include({ windowStart: 0n, spent: 0n });
    const set = fold([{ kind: "spendLimitSet", buyer: BUYER, block: 2n, limit: 500n, period: 60n }], open).buyer;
    expect(set?.spendLimit).to.deep.include({ limit: 500n, windowStart: 0n, spent: 0n });
  });

  it("keeps a requested tightening pending until a limit is put in force", function () {
    const pending = fold([
      { kind: "spendLimitRequested", buyer: BUYER, block: 1n, limit: 100n, period: 60n, effectiveAt: 90_000n },
    ]).buyer;
    expect(pending?.spendLimit.pending).to.deep.equal({ limit: 100n, period: 60n, effectiveAt: 90_000n });
    expect(pending?.spendLimit.limit).to.equal(0n);
    const applied = fold([{ kind: "spendLimitSet", buyer: BUYER, block: 2n, limit: 100n, period: 60n }], pending).buyer;
    expect(applied?.spendLimit).to.deep.include({ limit: 100n, period: 60n, pending: null });
  });
});
