import { expect } from "chai";
import { coalesce } from "./coalesce.ts";

describe("coalesce (group commit)", function () {
  it("runs a lone call at once, alone", async function () {
    const groups: number[][] = [];
    const run = coalesce(async (items: number[]) => {
      groups.push(items);
      return items.map((i) => i * 2);
    });
    const answer = run(21);
    expect(groups, "started before the caller awaited").to.deep.equal([[21]]);
    expect(await answer).to.equal(42);
  });

  it("groups the calls made while a group runs, and answers each its own", async function () {
    const groups: number[][] = [];
    const run = coalesce(async (items: number[]) => {
      groups.push(items);
      await new Promise((r) => setTimeout(r, 10));
      return items.map((i) => i * 2);
    });
    const answers = await Promise.all([1, 2, 3, 4, 5].map(run));
    expect(answers).to.deep.equal([2, 4, 6, 8, 10]);
    expect(groups).to.deep.equal([[1], [2, 3, 4, 5]]);
  });

  it("caps a group at maxItems", async function () {
    const groups: number[][] = [];
    const run = coalesce(async (items: number[]) => {
      groups.push(items);
      await new Promise((r) => setTimeout(r, 5));
      return items;
    }, 2);
    await Promise.all([1, 2, 3, 4, 5, 6].map(run));
    expect(groups).to.deep.equal([[1], [2, 3], [4, 5], [6]]);
  });

  it("fails only the caller of a bad item: a failed group runs again item by item", async function () {
    const run = coalesce(async (items: number[]) => {
      await new Promise((r) => setTimeout(r, 5));
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
