import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { createPublicClient } from "viem";
import type { RpcErrorObserver } from "./observedTransport.ts";
import { rpcTransport } from "./observedTransport.ts";

const KEY = "k3y-0f-the-provider";

/** Everything an error carries that a log or a stored failure could print: its texts, its causes', as JSON. */
function printed(error: unknown): string {
  const parts: string[] = [];
  for (let at = error as Record<string, unknown> | undefined, depth = 0; at && depth < 10; depth++) {
    parts.push(String(at.message), String(at.stack), JSON.stringify(at, Object.getOwnPropertyNames(at)));
    at = at.cause as Record<string, unknown> | undefined;
  }
  return parts.join("\n");
}

/**
 * A hosted provider's API key is in its URL's path or query, and viem writes the whole URL into a failed request's
 * error ("URL: https://…/v2/KEY"). Before the fix the facilitator passed such errors on as they were: to its logs
 * (a settlement retry, a strike), to the strike table's stored error, and to the operator's terminal.
 */
describe("rpcTransport: an endpoint's API key never leaves in an error", function () {
  let server: Server;
  let port: number;

  before(async function () {
    server = createServer((_req, res) => res.writeHead(500, { "content-type": "text/plain" }).end("upstream down"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async function () {
    await new Promise((resolve) => server.close(resolve));
  });

  for (const [name, url] of [
    ["a refused connection", `http://127.0.0.1:9/v2/${KEY}?apikey=${KEY}`],
    ["an HTTP 500", () => `http://user:${KEY}@127.0.0.1:${port}/v2/${KEY}`],
  ] as const) {
    it(`${name}: the error names the endpoint's host only, and is still classified`, async function () {
      const rpcUrl = typeof url === "function" ? url() : url;
      const seen: Parameters<RpcErrorObserver>[0][] = [];
      const client = createPublicClient({
        transport: rpcTransport(rpcUrl, { retryCount: 0, timeout: 2_000 }, (e) => seen.push(e)),
      });
      const error = await client.getBlockNumber().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, "the request fails").to.be.instanceOf(Error);
      const text = printed(error);
      expect(text).not.to.include(KEY);
      expect(text).to.include(new URL(rpcUrl).host);
      expect(seen.map((e) => e.kind)).to.deep.equal(["transport"]);
    });
  }
});
