import { expect } from "chai";
import { failureRecap } from "./failureRecap.ts";

describe("failureRecap", () => {
  it("starts at mocha's last list of failures", () => {
    const output = ["a", "  2 failing", "old", "b", "  1 failing", "  1) the cause", "     Error: x"].join("\n");
    expect(failureRecap(output)).to.equal("  1 failing\n  1) the cause\n     Error: x");
  });

  it("keeps only the last 150 lines, of the failures or of an output without any", () => {
    const many = Array.from({ length: 400 }, (_, i) => `line ${i}`);
    for (const output of [many.join("\n"), ["  9 failing", ...many].join("\n")]) {
      const recap = failureRecap(output).split("\n");
      expect(recap).to.have.length(150);
      expect(recap.at(-1)).to.equal("line 399");
      expect(recap[0]).to.equal("line 250");
    }
  });

  it("repeats a short output whole", () => {
    expect(failureRecap("npm error missing script: x")).to.equal("npm error missing script: x");
  });
});
