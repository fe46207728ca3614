import type { Server } from "node:http";
import { Agent, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { callSandbox } from "./callSandbox.ts";

/** A server that answers the first request on each connection and resets the connection on the next one. */
async function oneRequestPerConnection(): Promise<{ server: Server; url: URL; requests: () => number }> {
  let requests = 0;
  const served = new WeakSet<object>();
  const server = createServer((req, res) => {
    requests++;
    if (served.has(req.socket)) {
      req.socket.destroy();
      return;
    }
    served.add(req.socket);
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    server,
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/call`),
    requests: () => requests,
  };
}

const call = () => ({
  body: {},
  rawBody: Buffer.from("{}"),
  signal: new AbortController().signal,
  maxResponseBytes: 1024,
});

describe("callSandbox", function () {
  it("sends a call again when its kept-alive socket was reset before any answer", async function () {
    const { server, url, requests } = await oneRequestPerConnection();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect((await callSandbox(agent, url, "k", call()))?.status).to.equal(200);
      const second = (await callSandbox(agent, url, "k", call()))!;
      expect(second.status).to.equal(200);
      expect(second.body.toString()).to.equal('{"ok":true}');
      expect(requests()).to.equal(3);
    } finally {
      agent.destroy();
      server.close();
    }
  });

  it("does not send again a call whose fresh connection fails", async function () {
    const server = createServer((req) => req.socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    let requests = 0;
    server.on("request", () => requests++);
    const agent = new Agent({ keepAlive: true });
    try {
      const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/call`);
      const error = await callSandbox(agent, url, "k", call()).then(
        () => null,
        (e: NodeJS.ErrnoException) => e,
      );
      expect(error?.code).to.equal("ECONNRESET");
      expect(requests).to.equal(1);
    } finally {
      agent.destroy();
      server.close();
    }
  });
});
