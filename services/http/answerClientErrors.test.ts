import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { expect } from "chai";
import { errorBodySchema } from "../protocol/schemas/errorBody.ts";
import { listen } from "./listen.ts";

/** Sends `raw` bytes on a new connection; resolves with everything the server wrote before it closed. */
function exchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString();
    });
    socket.on("close", () => resolve(received));
    socket.on("error", reject);
    socket.end(raw);
  });
}

describe("answerClientErrors (every server made by listen)", function () {
  let server: Server;
  let port: number;

  before(async function () {
    server = await listen((_req, res) => res.end("ok"), 0, "127.0.0.1");
    port = (server.address() as AddressInfo).port;
  });

  after(function () {
    server?.close();
  });

  for (const [name, raw, status] of [
    ["headers over 16 KiB", `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, 431],
    [
      "two Content-Length headers",
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
      400,
    ],
    ["a Content-Length that is not a number", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: x\r\n\r\n", 400],
    ["not HTTP", "HELLO\r\n\r\n", 400],
  ] as const) {
    it(`answers ${name} with ${status} and an error body (Node's own answer has none), then closes`, async function () {
      const answer = await exchange(port, raw);
      const [head = "", body = ""] = answer.split("\r\n\r\n");
      expect(head).to.match(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(head.toLowerCase()).to.include("content-type: application/json");
      expect(errorBodySchema.parse(JSON.parse(body)).error.code).to.equal("invalid_request");
    });
  }

  for (const [name, raw, status] of [
    ["an HTTP/1.1 request without Host", "GET / HTTP/1.1\r\nConnection: close\r\n\r\n", 400],
    [
      "an Expect it does not do",
      "POST / HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
      417,
    ],
  ] as const) {
    it(`answers ${name} with ${status} and an error body (Node's own answer has none)`, async function () {
      const answer = await exchange(port, raw);
      const [head = "", body = ""] = answer.split("\r\n\r\n");
      expect(head).to.match(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(errorBodySchema.parse(JSON.parse(body)).error.code).to.equal("invalid_request");
    });
  }

  it("serves an HTTP/1.0 request without Host, which needs none", async function () {
    expect(await exchange(port, "GET / HTTP/1.0\r\n\r\n")).to.match(/^HTTP\/1\.1 200 /);
  });

  it("still serves a well-formed request", async function () {
    expect(await exchange(port, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")).to.match(/^HTTP\/1\.1 200 /);
  });
});
