import { expect } from "chai";
import { testSchema } from "../../../testkit/postgres/testPostgres.ts";
import { sleep } from "../../../testkit/sleep.ts";
import { HttpError } from "../../http/httpError.ts";
import { openStore } from "../../store/openStore.ts";
import { MIGRATIONS } from "../store/migrations.ts";
import { findRegistration } from "../store/registrations.ts";
import { createPublishSlots, PUBLISHES_AT_ONCE } from "./publishSlots.ts";

describe("publish slots", function () {
  this.timeout(60_000);

  it("runs at most its slots at once, the others in the order they came, and refuses past its waiting room", async function () {
    const slots = createPublishSlots(2, 3);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const publish = (n: number) =>
      slots.run(async () => {
        most = Math.max(most, ++running);
        await sleep(20);
        running--;
        order.push(n);
        return n;
      });
    const five = [1, 2, 3, 4, 5].map(publish);
    const refused = await publish(6).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(HttpError).and.to.include({ status: 503, code: "publish_busy" });
    expect((refused as HttpError).headers).to.deep.equal({ "Retry-After": "5" });
    expect(await Promise.all(five)).to.deep.equal([1, 2, 3, 4, 5]);
    expect(most).to.equal(2);
    expect(order.slice(2)).to.deep.equal([3, 4, 5]);
    // A failed publish gives its slot back.
    await slots.run(() => Promise.reject(new Error("refused"))).catch(() => {});
    expect(await Promise.all([7, 8, 9].map(publish))).to.deep.equal([7, 8, 9]);
  });

  it("attack: as many publishes at once as the PostgreSQL pool has connections: all finish, and the store still answers", async function () {
    // Before, each publish held a connection for its lock and asked the pool for another: twenty at once (the pool's
    // size) each waited for a connection none would give back, and the catalog's pulls, card reads and /ready hung.
    const db = await testSchema("marketplace_slots");
    const store = await openStore({
      databaseUrl: db.url,
      schema: db.schema,
      migrations: MIGRATIONS,
      maxConnections: 8,
    });
    try {
      const slots = createPublishSlots();
      expect(PUBLISHES_AT_ONCE).to.be.below(8);
      const id = (n: number) => `0x${n.toString(16).padStart(64, "0")}` as const;
      // publishResource's shape: the lock's connection held while it awaits, its statements on the pool.
      const publishes = Array.from({ length: 8 }, (_, n) =>
        slots.run(() =>
          store.withLock(`publish:${id(n)}`, async () => {
            await sleep(50);
            return findRegistration(store, id(n));
          }),
        ),
      );
      const finished = await Promise.race([
        Promise.all(publishes).then(() => "finished"),
        sleep(15_000).then(() => "hung"),
      ]);
      expect(finished).to.equal("finished");
      expect(await store.query("SELECT 1 AS one")).to.deep.equal([{ one: 1 }]);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
