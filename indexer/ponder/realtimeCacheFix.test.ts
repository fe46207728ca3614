import { readFileSync } from "node:fs";
import { expect } from "chai";
import { FIXED_REALTIME_LOOP, fixRealtimeCache } from "./realtimeCacheFix.ts";

const indexingModule = () =>
  readFileSync(new URL("../../node_modules/ponder/dist/esm/indexing/index.js", import.meta.url), "utf8");

describe("Ponder's realtime indexing cache fix", () => {
  it("adds the missing line to the installed Ponder exactly once, and is idempotent", () => {
    const fixed = fixRealtimeCache(indexingModule());
    expect(fixed.split(FIXED_REALTIME_LOOP)).to.have.length(2);
    expect(fixRealtimeCache(fixed)).to.equal(fixed);
  });

  it("refuses code it was not written for, rather than running Ponder unpatched", () => {
    expect(() => fixRealtimeCache("export const createIndexing = () => ({});")).to.throw(/not the 0.16 code/);
  });
});
