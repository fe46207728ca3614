import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { expect } from "chai";
import { fetchBounded } from "./fetchBounded.ts";

const limits = { timeoutMs: 5_000, maxBytes: 65_536, allowPrivate: true };

/**
 * An HTTP/1.1 server on loopback that answers the first request of each connection and keeps it open, then resets the
 * connection (TCP RST, nothing answered) when a second request arrives on it: what a client sees when a server closes
 * an idle kept-alive socket just as the client reuses it. Counts the requests each connection received.
 */
async function resetsReusedConnections(): Promise<{ server: Server; url: string; requests: number[] }> {
  const requests: number[] = [];
  const server = createServer((socket: Socket) => {
    const index = requests.push(0) - 1;
    socket.on("data", (chunk: Buffer) => {
      if (!chunk.includes("\r\n\r\n")) return;
      requests[index] = (requests[index] ?? 0) + 1;
      if ((requests[index] ?? 0) > 1) return socket.resetAndDestroy();
      socket.write(
        "HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok",
      );
    });
    socket.on("error", () => {});
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { server, url: `http://127.0.0.1:${port}/`, requests };
}

describe("fetchBounded on a kept-alive socket the server resets", function () {
  let peer: Awaited<ReturnType<typeof resetsReusedConnections>>;
  beforeEach(async () => {
    peer = await resetsReusedConnections();
  });
  afterEach(() => peer.server.close());

  it("sends a GET once more on a new connection and answers it", async function () {
    expect(await fetchBounded(peer.url, {}, limits)).to.include({ status: 200, text: "ok" });
    const again = await fetchBounded(peer.url, {}, limits);
    expect(again).to.include({ status: 200, text: "ok" });
    expect(peer.requests).to.deep.equal([2, 1], "the reused connection was reset, a new one answered");
  });

  it("never sends a POST twice: the reset is the answer", async function () {
    expect(await fetchBounded(peer.url, { method: "POST", body: "{}" }, limits)).to.include({ status: 200 });
    expect(await fetchBounded(peer.url, { method: "POST", body: "{}" }, limits)).to.deep.equal({ error: "ECONNRESET" });
    expect(peer.requests).to.deep.equal([2]);
  });
});
