import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { expect } from "chai";
import { keepIdleConnections } from "./keepIdleConnections.ts";

describe("keepIdleConnections", function () {
  it("answers a second request on a connection left idle past Node's default (5 s, closed within 6 s)", async function () {
    this.timeout(20_000);
    const server = keepIdleConnections(createServer((_req, res) => res.end("ok")));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
    let received = "";
    let closed = false;
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString();
    });
    socket.on("close", () => {
      closed = true;
    });
    const get = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    const answers = () => received.split("HTTP/1.1 200").length - 1;
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    try {
      socket.write(get);
      await until(() => answers() === 1);
      await new Promise((resolve) => setTimeout(resolve, 7_500));
      expect(closed, "the server closed the idle connection").to.equal(false);
      socket.write(get);
      await until(() => answers() === 2 || closed);
      expect(answers()).to.equal(2);
    } finally {
      socket.destroy();
      server.close();
    }
  });
});
