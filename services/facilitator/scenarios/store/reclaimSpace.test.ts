import { expect } from "chai";
import type { Hex } from "viem";
import { openTestStore } from "../../../../testkit/facilitator/openTestStore.ts";
import { storePaidCalls } from "../../../../testkit/facilitator/storePaidCalls.ts";
import { reclaimStoreSpace } from "../../backgroundWork.ts";
import type { Store } from "../../store/createStore.ts";
import { createStore } from "../../store/createStore.ts";
import { purgeReservations } from "../../store/reservations.ts";

const hex = (n: number, bytes = 32): Hex => `0x${n.toString(16).padStart(bytes * 2, "0")}`;
const resourceId = hex(1);
const buyer = hex(2, 20);
const response = { status: 200, contentType: "application/json", body: { echoed: "x".repeat(200) } };
const CALLS = 300;
const DAY = 86_400;

/** CALLS paid calls as the facilitator stores them (reserved, committed, mined), at `now`. */
const payCalls = (store: Store, first: number, now: number) =>
  storePaidCalls(store, {
    resourceId,
    payments: Array.from({ length: CALLS }, (_, i) => ({ buyer, idemKey: hex(first + i) })),
    now,
    validBefore: now + 120,
    block: 2,
    response,
  });

/** Bytes on disk of the facilitator's table of paid calls and its indexes. */
async function storeBytes(store: Store): Promise<number> {
  const [row] = await store.query<{ bytes: string }>("SELECT pg_total_relation_size('reservation')::text AS bytes");
  return Number(row?.bytes);
}

/**
 * A day of calls, purged a day later, day after day: the store must reuse what it purged. PGlite runs no autovacuum
 * and no checkpointer, so without reclaimStoreSpace its files grew by every call ever paid.
 */
describe("reclaiming the embedded store's space (PGlite)", function () {
  let store: Store;
  beforeEach(async function () {
    store = await createStore({ dataDir: "memory://" });
  });
  afterEach(async function () {
    await store.close();
  });

  it("stays the size of what it retains, day after day, once purged rows are reclaimed", async function () {
    const sizes: number[] = [];
    for (let day = 0; day < 6; day++) {
      const now = 1_000_000 + day * 2 * DAY;
      await payCalls(store, 1_000 + day * CALLS, now);
      // The day before is past retention by now: purged, then its space reclaimed for the days to come.
      expect(await purgeReservations(store, now, DAY)).to.equal(day === 0 ? 0 : CALLS);
      expect(await reclaimStoreSpace(store)).to.be.greaterThan(0);
      sizes.push(await storeBytes(store));
    }
    // Each day holds one day of calls. Unreclaimed, the files grew by a day of writes every day (2.2 MB a day here,
    // 5.6 times the first day's size after six).
    expect(Math.max(...sizes.slice(1))).to.be.at.most(1.5 * (sizes[1] ?? 0));
  });
});

describe("checkpointing the embedded store's log (PGlite)", function () {
  it("moves the redo point, from which a crash replays the log, up to the last call", async function () {
    const store = await createStore({ dataDir: "memory://" });
    try {
      const redoPoint = async () =>
        (await store.query<{ lsn: string }>("SELECT redo_lsn::text AS lsn FROM pg_control_checkpoint()"))[0]?.lsn;
      const atStart = await redoPoint();
      await payCalls(store, 1_000, 1_000_000);
      expect(await redoPoint()).to.equal(atStart);
      await reclaimStoreSpace(store);
      const [{ behind } = { behind: "-1" }] = await store.query<{ behind: string }>(
        "SELECT (pg_current_wal_lsn() - redo_lsn)::text AS behind FROM pg_control_checkpoint()",
      );
      // Only the checkpoint record itself (and what the VACUUMs wrote before it) lies past the redo point.
      expect(Number(behind)).to.be.below(64 * 1024);
      expect(await redoPoint()).to.not.equal(atStart);
    } finally {
      await store.close();
    }
  });
});

describe("reclaiming the store's space (PostgreSQL)", function () {
  it("leaves it to autovacuum", async function () {
    const store = await openTestStore("PostgreSQL");
    try {
      expect(await reclaimStoreSpace(store)).to.equal(0);
    } finally {
      await store.close();
    }
  });
});
