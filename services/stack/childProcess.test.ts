import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { answers, startPart } from "./childProcess.ts";

const idle = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] };

describe("startPart", function () {
  it("reports a part that is slow to be ready while it waits, then gives up naming why", async function () {
    const progress: string[] = [];
    const failure = await startPart({
      name: "facilitator",
      ...idle,
      ready: async () => false,
      readyTimeoutMs: 1_000,
      progressEveryMs: 300,
      progress: (line) => progress.push(line),
      log: () => {},
    }).catch((error: Error) => error);
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.match(/^facilitator was not ready after 1s \(answering, not ready yet\)/);
    expect(progress.length).to.be.within(2, 4);
    expect(progress[0]).to.match(/^still waiting for the facilitator after \d+ s: answering, not ready yet$/);
  });

  it("names a part that does not answer at all by the connection's error", async function () {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const failure = await startPart({
      name: "host",
      ...idle,
      ready: () => answers(`http://127.0.0.1:${port}/ready`),
      readyTimeoutMs: 500,
      log: () => {},
    }).catch((error: Error) => error);
    expect((failure as Error).message).to.match(/^host was not ready after 0.5s \(not answering \(ECONNREFUSED\)\)/);
  });

  it("counts a part as started once it is ready, and fails fast when it exits first, with its output", async function () {
    let polls = 0;
    const part = await startPart({ name: "chain", ...idle, ready: async () => ++polls >= 2, log: () => {} });
    expect(polls).to.equal(2);
    await part.stop();
    expect(part.child.exitCode !== null || part.child.signalCode !== null).to.equal(true);

    const failure = await startPart({
      name: "indexer",
      command: process.execPath,
      args: ["-e", "console.error('no schema given'); process.exit(3)"],
      ready: async () => false,
      log: () => {},
    }).catch((error: Error) => error);
    expect((failure as Error).message).to.equal("indexer exited with code 3 before it was ready:\nno schema given");
  });
});
