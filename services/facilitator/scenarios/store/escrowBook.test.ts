import { expect } from "chai";
import type { Address, Hex } from "viem";
import { openTestStore, TEST_STORES } from "../../../../testkit/facilitator/openTestStore.ts";
import type { BookedBuyer } from "../../escrowBook/foldEscrowEvents.ts";
import { UNSEEN_BUYER } from "../../escrowBook/foldEscrowEvents.ts";
import type { Store } from "../../store/createStore.ts";
import { advanceBook, correctBookedBuyer, readBookCursor, resetBook } from "../../store/escrowBook.ts";
import { reserve } from "../../store/reservations.ts";

const hex = (n: number): Hex => `0x${n.toString(16).padStart(64, "0")}`;
const ESCROW = `0x${"e5".repeat(20)}`;
/** The hash of a page's last block and of the start block: the store keeps them, the follower checks them. */
const HASH: Hex = `0x${"ab".repeat(32)}`;
const NOW = 10_000;
const VALID_BEFORE = NOW + 600;
const payload = { scheme: "service-escrow", authorization: {}, signature: "0x" as Hex };
const fromBook = { now: NOW, book: { maxLagSeconds: 60 } };

for (const kind of TEST_STORES) {
  /** reserve_call against the book (migration 11): the SQL twin of what the escrow checks at debit time. */
  describe(`the escrow book in the store (${kind})`, function () {
    let store: Store;
    let buyers = 0;

    beforeEach(async function () {
      store = await openTestStore(kind);
      await resetBook(store, ESCROW, 1n, HASH);
      expect(await advanceBook(store, { toHash: HASH, from: 1n, to: 10n, events: [], currentAt: NOW })).to.equal(true);
    });
    afterEach(async function () {
      await store.close();
    });

    /** A new buyer booked with `state` (a large balance unless given), at the book's block. */
    type BuyerSetup = Partial<Omit<BookedBuyer, "spendLimit">> & { spendLimit?: Partial<BookedBuyer["spendLimit"]> };
    async function booked(state: BuyerSetup = {}) {
      const buyer = `0x${(++buyers).toString(16).padStart(40, "0")}` as Address;
      const full: BookedBuyer = {
        ...UNSEEN_BUYER,
        balance: 1_000_000n,
        ...state,
        spendLimit: { ...UNSEEN_BUYER.spendLimit, ...state.spendLimit },
      };
      expect(await correctBookedBuyer(store, buyer.toLowerCase(), full, 10n)).to.equal(true);
      return buyer;
    }
    const pay = (buyer: Address, cap: bigint, idemKey = hex(Math.floor(Math.random() * 1e12))) =>
      reserve(
        store,
        { idemKey, scheme: "service-escrow", buyer, resourceId: hex(1), cap, payload, validBefore: VALID_BEFORE },
        fromBook,
      );
    /** What the buyer's limit leaves: the largest cap reserved, on a fresh buyer each try. */
    async function room(state: BuyerSetup, expected: bigint | null) {
      if (expected === null) {
        expect(await pay(await booked(state), 1_000_000n)).to.include({ outcome: "reserved" });
        return;
      }
      expect(await pay(await booked(state), expected)).to.include({ outcome: "reserved" });
      expect(await pay(await booked(state), expected + 1n)).to.include({ outcome: "over_cap" });
    }

    it("reserves what the booked balance less a pending withdrawal covers", async function () {
      const buyer = await booked({ balance: 5_000n, pendingWithdrawal: 2_000n });
      expect(await pay(buyer, 3_001n)).to.deep.equal({ outcome: "insufficient_balance", held: 0n, available: 3_000n });
      expect(await pay(buyer, 3_000n)).to.deep.equal({ outcome: "reserved", held: 0n, available: 3_000n });
      expect(await pay(await booked({ balance: 0n }), 1n)).to.include({ outcome: "insufficient_balance" });
    });

    it("refuses with book_behind when the book has not been current for its allowed lag", async function () {
      const buyer = await booked();
      await store.query("UPDATE escrow_book SET current_at = $1", [NOW - 61]);
      expect(await pay(buyer, 1n)).to.deep.equal({ outcome: "book_behind" });
      await store.query("UPDATE escrow_book SET current_at = $1", [NOW - 60]);
      expect(await pay(buyer, 1n)).to.include({ outcome: "reserved" });
    });

    it("spend limit: the limit less what the window spent, or all of it once the window has passed", async function () {
      const inForce = { limit: 5_000n, period: 3_600n, windowStart: BigInt(NOW - 100), spent: 1_000n };
      await room({ spendLimit: { limit: 0n } }, null);
      await room({ spendLimit: inForce }, 4_000n);
      await room({ spendLimit: { ...inForce, windowStart: BigInt(NOW - 3_600) } }, 5_000n);
    });

    it("spend limit: a tightening that may be applied before the authorization expires leaves the smaller room", async function () {
      const inForce = { limit: 5_000n, period: 3_600n, windowStart: BigInt(NOW - 100), spent: 1_000n };
      const pending = (limit: bigint, period: bigint, effectiveAt: number) => ({
        spendLimit: { ...inForce, pending: { limit, period, effectiveAt: BigInt(effectiveAt) } },
      });
      await room(pending(2_000n, 3_600n, VALID_BEFORE - 1), 1_000n);
      await room(pending(9_000n, 7_200n, VALID_BEFORE - 1), 4_000n);
      await room(pending(1n, 3_600n, VALID_BEFORE), 4_000n);
      const passed = pending(5_000n, 7_200n, NOW - 1);
      await room({ spendLimit: { ...passed.spendLimit, windowStart: BigInt(NOW - 3_600) } }, 4_000n);
      await room({ spendLimit: { ...pending(3_000n, 3_600n, NOW).spendLimit, limit: 0n, period: 0n } }, 2_000n);
    });

    it("applies a page only right after the last one, records its last block's hash, and tombstones every nonce its debits spent", async function () {
      const buyer = await booked({ balance: 1_000n });
      const debited = {
        kind: "debited" as const,
        buyer,
        block: 12n,
        nonce: hex(7),
        amount: 400n,
        fromBalance: true,
        timestamp: BigInt(NOW),
      };
      expect(
        await advanceBook(store, { toHash: HASH, from: 12n, to: 12n, events: [debited], currentAt: NOW }),
        "a gap",
      ).to.equal(false);
      const hash12: Hex = `0x${"12".repeat(32)}`;
      expect(
        await advanceBook(store, { toHash: hash12, from: 11n, to: 12n, events: [debited], currentAt: NOW }),
      ).to.equal(true);
      expect(
        await advanceBook(store, { toHash: HASH, from: 11n, to: 12n, events: [debited], currentAt: NOW }),
        "again",
      ).to.equal(false);
      expect(await readBookCursor(store)).to.deep.include({ syncedBlock: 12n, syncedHash: hash12, startHash: HASH });
      expect(await pay(buyer, 601n)).to.include({ outcome: "insufficient_balance", available: 600n });
      expect(await pay(buyer, 1n, hex(7)), "the spent nonce").to.deep.equal({ outcome: "nonce_used" });
    });
  });
}
