import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { expect } from "chai";
import { freePort } from "./freePort.ts";

describe("freePort", function () {
  it("picks listenable ports below the kernel's range for outgoing connections", async function () {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).to.be.below(low).and.at.least(1_024);
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", resolve);
      });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
