import { expect } from "chai";
import { createStore } from "../services/facilitator/store/createStore.ts";
import { measureStoreCpu } from "./storeCpu.ts";

describe("bench:store's CPU per paid call (storeCpu.ts)", () => {
  it("takes every call through the facilitator's statements: reserved, committed, mined and booked", async () => {
    const store = await createStore({ dataDir: "memory://" });
    try {
      const response = { status: 200, contentType: "application/json", body: { echo: 1 } };
      const cpu = await measureStoreCpu(store, { calls: 40, group: 4, block: 16, buyers: 8, response });
      for (const part of ["reserve", "commit", "mined", "book"] as const) expect(cpu[part]).to.be.greaterThan(0);
      expect(cpu.total).to.be.closeTo(cpu.reserve + cpu.commit + cpu.mined + cpu.book, 1e-9);
      const rows = await store.query<{ status: string; n: number }>(
        "SELECT status, count(*)::int AS n FROM reservation GROUP BY status",
      );
      expect(rows).to.deep.equal([{ status: "settled", n: 40 }]);
      const [book] = await store.query<{ synced: string; spent: string }>(
        `SELECT (SELECT synced_block::text FROM escrow_book) AS synced,
                (SELECT (count(*) * 1000000000000000 - sum(balance))::text FROM buyer_book) AS spent`,
      );
      // 40 calls of 10,200 over 8 buyers, mined in blocks 2 to 4, each applied to the book.
      expect(book).to.deep.equal({ synced: "4", spent: String(40 * 10_200) });
    } finally {
      await store.close();
    }
  });
});
