import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import type { Hex } from "viem";
import type { BatchBook } from "../relayer/batchBook.ts";
import type { Store } from "./createStore.ts";
import { createStore } from "./createStore.ts";
import { readBookTotals, recordSettlementBook } from "./settlementBooks.ts";

const book = (n: number, overrides: Partial<BatchBook> = {}): BatchBook => ({
  transaction: `0x${n.toString(16).padStart(64, "0")}` as Hex,
  block: BigInt(n),
  items: 50,
  debits: 49,
  gasUsed: 500_000n,
  gasPriceWei: 20_000_000_000n,
  treasuryUnits: 49n * 60n,
  ...overrides,
});

describe("settlementBooks", function () {
  const dir = mkdtempSync(join(tmpdir(), "settlement-books-"));
  let store: Store;

  before(async function () {
    store = await createStore({ dataDir: dir });
  });

  after(async function () {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts at zero, adds each transaction's cost in token units and its income, and counts a transaction once", async function () {
    expect(await readBookTotals(store)).to.deep.equal({
      transactions: 0,
      debits: 0,
      gasUsed: 0n,
      costUnits: 0n,
      treasuryUnits: 0n,
    });
    expect(await store.transaction((tx) => recordSettlementBook(tx, book(1), 1))).to.equal(true);
    expect(await store.transaction((tx) => recordSettlementBook(tx, book(2, { gasUsed: 1n, debits: 1 }), 2))).to.equal(
      true,
    );
    // The same transaction again (a second instance, a retry): nothing changes.
    expect(await store.transaction((tx) => recordSettlementBook(tx, book(1), 3))).to.equal(false);
    expect(await readBookTotals(store)).to.deep.equal({
      transactions: 2,
      debits: 50,
      gasUsed: 500_001n,
      // 500,000 gas at 20 gwei is 0.01 USDC (10,000 units); 1 gas rounds up to one unit.
      costUnits: 10_001n,
      treasuryUnits: 49n * 60n * 2n,
    });
  });
});
