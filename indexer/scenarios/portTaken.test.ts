import type { Server } from "node:net";
import { createServer } from "node:net";
import { expect } from "chai";
import type { LocalChain } from "../../testkit/chain/localChain.ts";
import { startLocalChain } from "../../testkit/chain/localChain.ts";
import { startIndexer } from "../../testkit/indexer/startIndexer.ts";

/**
 * Ponder as the stack runs it (patches preloaded) when its port is taken by another process: it stops and says so,
 * where Ponder as installed moves to the next port, and everyone asking the indexer's port reads the other process.
 */
describe("an indexer whose port is taken", function () {
  this.timeout(180_000);
  let chain: LocalChain | undefined;
  let taken: Server | undefined;
  let port: number;

  before(async () => {
    chain = await startLocalChain();
    const server = createServer((socket) => socket.end("not the indexer\n"));
    taken = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  after(async () => {
    taken?.close();
    await chain?.close();
  });

  it("stops before it is ready, naming the port, instead of listening on the next one", async () => {
    let refused: Error | undefined;
    const indexer = await startIndexer(chain!, { port, logLevel: "error" }).catch((error: Error) => {
      refused = error;
    });
    await indexer?.stop();
    expect(refused?.message).to.match(/^ponder exited with [1-9]\d* before it was ready/);
    expect(refused?.message).to.include(`port ${port} is taken by another process`);
  });
});
