import { expect } from "chai";
import { sleep } from "../../testkit/sleep.ts";
import { cachedRead } from "./cachedRead.ts";

describe("cachedRead", function () {
  it("answers concurrent and later callers from one read until it is ttlMs old, then reads again", async function () {
    let reads = 0;
    const read = cachedRead(50, async () => ++reads);
    expect(await Promise.all([read(), read(), read()])).to.deep.equal([1, 1, 1]);
    expect(await read(), "within the ttl").to.equal(1);
    await sleep(60);
    expect(await read(), "past the ttl").to.equal(2);
  });

  it("keeps no failed read: the next caller reads again", async function () {
    let reads = 0;
    const read = cachedRead(60_000, async () => {
      reads++;
      if (reads === 1) throw new Error("rpc down");
      return reads;
    });
    await read().then(
      () => expect.fail("the failed read answered"),
      (error: Error) => expect(error.message).to.equal("rpc down"),
    );
    expect(await read()).to.equal(2);
    expect(await read(), "the good read is kept").to.equal(2);
  });
});
