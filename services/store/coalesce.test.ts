import { expect } from "chai";
import { sleep } from "../../testkit/sleep.ts";
import { coalesce } from "./coalesce.ts";

describe("coalesce (group commit)", function () {
  it("runs a lone call on the next turn of the event loop, alone", async function () {
    const groups: number[][] = [];
    const run = coalesce(async (items: number[]) => {
      groups.push(items);
      return items.map((i) => i * 2);
    });
    const answer = run(21);
    expect(groups, "nothing runs before the turn ends").to.deep.equal([]);
    expect(await answer).to.equal(42);
    expect(groups).to.deep.equal([[21]]);
  });

  it("groups the calls of one turn even when the store answers synchronously (PGlite)", async function () {
    // Each call comes from its own callback of one turn, as requests read from their sockets do; a store that never
    // yields (PGlite runs a statement synchronously) used to finish each before the next callback ran: five groups.
    const groups: number[][] = [];
    const run = coalesce(async (items: number[]) => {
      groups.push(items);
      return items.map((i) => i * 2);
    });
    const answers = await new Promise<number[]>((resolve) => {
      const pending: Promise<number>[] = [];
      for (const i of [1, 2, 3, 4, 5])
        setImmediate(() => {
          pending.push(run(i));
          if (pending.length === 5) void Promise.all(pending).then(resolve);
        });
    });
    expect(answers).to.deep.equal([2, 4, 6, 8, 10]);
    expect(groups).to.deep.equal([[1, 2, 3, 4, 5]]);
  });

  it("groups the calls made while a group runs, and answers each its own", async function () {
    const groups: number[][] = [];
    const run = coalesce(async (items: number[]) => {
      groups.push(items);
      await sleep(10);
      return items.map((i) => i * 2);
    });
    const first = run(1);
    await sleep(2);
    const answers = await Promise.all([first, ...[2, 3, 4, 5].map(run)]);
    expect(answers).to.deep.equal([2, 4, 6, 8, 10]);
    expect(groups).to.deep.equal([[1], [2, 3, 4, 5]]);
  });

  it("caps a group at maxItems", async function () {
    const groups: number[][] = [];
    const run = coalesce(async (items: number[]) => {
      groups.push(items);
      await sleep(5);
      return items;
    }, 2);
    await Promise.all([1, 2, 3, 4, 5].map(run));
    expect(groups).to.deep.equal([[1, 2], [3, 4], [5]]);
  });

  it("fails only the caller of a bad item: a failed group runs again item by item", async function () {
    const run = coalesce(async (items: number[]) => {
      await sleep(5);
      if (items.includes(3)) throw new Error("bad item 3");
      return items.map((i) => i + 100);
    });
    const answers = await Promise.allSettled([1, 2, 3, 4].map(run));
    expect(answers.map((a) => (a.status === "fulfilled" ? a.value : (a.reason as Error).message))).to.deep.equal([
      101,
      102,
      "bad item 3",
      104,
    ]);
  });

  it("refuses a group answer of the wrong length rather than misroute answers", async function () {
    const run = coalesce(async (items: number[]) => items.slice(1));
    let error: unknown;
    await run(1).catch((e) => (error = e));
    expect((error as Error).message).to.match(/answered 0/);
  });
});
