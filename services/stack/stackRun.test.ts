import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { loadStackConfig } from "./loadStackConfig.ts";
import { createStackRun } from "./stackRun.ts";

describe("StackRun.supervise", function () {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), "stack-run-"));
    mkdirSync(join(root, ".stack", "logs"), { recursive: true });
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("gives every part READY_TIMEOUT_SECONDS, its log, its port and the start's abandon signal, and BACKGROUND_NICENESS to background parts only", async function () {
    const env = loadStackConfig({ READY_TIMEOUT_SECONDS: "420", BACKGROUND_NICENESS: "3" });
    const run = createStackRun({ root, env, started: performance.now() });
    const indexer = run.supervise("indexer", "background");
    const host = run.supervise("host", "paid path");
    expect({ ...indexer, log: undefined, progress: undefined, signal: undefined }).to.deep.equal({
      name: "indexer",
      readyTimeoutMs: 420_000,
      niceness: 3,
      listens: { port: 42069, setting: "INDEXER_PORT" },
      log: undefined,
      progress: undefined,
      signal: undefined,
    });
    expect([host.name, host.readyTimeoutMs, host.niceness]).to.deep.equal(["host", 420_000, 0]);
    expect(host.listens).to.deep.equal({ port: env.HOST_PORT, setting: "HOST_PORT" });
    expect(host.signal?.aborted).to.equal(false);
    run.abandon.abort(new Error("the facilitator failed"));
    expect([indexer.signal?.aborted, host.signal?.aborted], "one signal gives up every part").to.deep.equal([
      true,
      true,
    ]);
    expect(host.progress).to.equal(run.say);
    host.log("host | listening");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readFileSync(join(root, ".stack", "logs", "host.log"), "utf8")).to.equal("host | listening\n");
  });
});
