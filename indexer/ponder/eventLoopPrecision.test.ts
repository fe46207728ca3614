import { readFileSync } from "node:fs";
import { expect } from "chai";
import { EVENT_LOOP_SAMPLE_MS, sampleEventLoopLess } from "./eventLoopPrecision.ts";

const metrics = readFileSync(
  new URL("../../node_modules/ponder/dist/esm/internal/metrics.js", import.meta.url),
  "utf8",
);

describe("Ponder's event-loop sampling (eventLoopPrecision.ts)", () => {
  it("samples the installed Ponder's event loop every 10 ms instead of every millisecond", () => {
    expect(metrics).to.include("eventLoopMonitoringPrecision: 1,");
    const patched = sampleEventLoopLess(metrics);
    expect(patched).to.include(`eventLoopMonitoringPrecision: ${EVENT_LOOP_SAMPLE_MS},`);
    expect(patched).to.not.include("eventLoopMonitoringPrecision: 1,");
    expect(patched.length - metrics.length).to.equal(String(EVENT_LOOP_SAMPLE_MS).length - 1);
  });

  it("leaves patched code as it is, and stops a Ponder whose metrics are not the code it was written for", () => {
    const patched = sampleEventLoopLess(metrics);
    expect(sampleEventLoopLess(patched)).to.equal(patched);
    expect(() => sampleEventLoopLess(metrics.replace("eventLoopMonitoringPrecision: 1,", ""))).to.throw(
      /eventLoopPrecision\.ts: Ponder's default metrics' event-loop sampling is not the 0\.16 code/,
    );
  });
});
