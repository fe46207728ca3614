import { expect } from "chai";
import { nestedDeeperThan } from "./jsonDepth.ts";

describe("nestedDeeperThan", function () {
  it("counts the nesting of arrays and objects, not brackets inside strings", function () {
    expect(nestedDeeperThan('{"a":[[1]]}', 3)).to.equal(false);
    expect(nestedDeeperThan('{"a":[[1]]}', 2)).to.equal(true);
    expect(nestedDeeperThan('{"a":"[[[[[[", "b":"\\\\", "c":"\\"[[["}', 1)).to.equal(false);
    expect(nestedDeeperThan('{"a":{}, "b":{}, "c":[{}]}', 3), "siblings do not add up").to.equal(false);
    expect(nestedDeeperThan('{"a":{}, "b":{}, "c":[{}]}', 2)).to.equal(true);
    expect(nestedDeeperThan("1", 0)).to.equal(false);
    expect(nestedDeeperThan(`{"a":${"[".repeat(200_000)}`, 512), "unclosed, deep").to.equal(true);
  });
});
