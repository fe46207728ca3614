import { expect } from "chai";
import fc from "fast-check";
import { bestFirst } from "./bestFirst.ts";

describe("bestFirst", function () {
  it("answers the k best hits, best first, ties by the lower position", function () {
    expect([...bestFirst(new Float64Array([1, 3, 3, 2]), new Int32Array([0, 9, 4, 7]), 4, 3)]).to.deep.equal([4, 9, 7]);
    expect([...bestFirst(new Float64Array([1]), new Int32Array([5]), 1, 10)]).to.deep.equal([5]);
    expect([...bestFirst(new Float64Array(0), new Int32Array(0), 0, 10)]).to.deep.equal([]);
    expect([...bestFirst(new Float64Array([2, 1]), new Int32Array([1, 0]), 2, 0)]).to.deep.equal([]);
  });

  it("equals the first k of a full sort, whatever the scores and k", function () {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(0.5, 1, 1.5, 2, 7.25), { maxLength: 200 }), fc.nat(220), (values, k) => {
        const positions = new Int32Array(values.map((_, i) => (i * 7919) % 10_007));
        const scores = new Float64Array(values);
        const sorted = values
          .map((score, i) => ({ score, position: positions[i]! }))
          .sort((a, b) => b.score - a.score || a.position - b.position)
          .slice(0, k)
          .map((hit) => hit.position);
        expect([...bestFirst(scores, positions, values.length, k)]).to.deep.equal(sorted);
      }),
    );
  });
});
