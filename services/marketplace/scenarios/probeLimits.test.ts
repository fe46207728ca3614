import type { Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { isPrivateAddress } from "../../http/privateAddress.ts";
import type { ProbeResourceParameters } from "../publish/probeResource.ts";
import { probeResource } from "../publish/probeResource.ts";

const resourceId = `0x${"ab".repeat(32)}` as const;

/**
 * The probe read every answer whole and reached any address. A creator who publishes (or a resource that turns
 * hostile later, probed every minute) could make the marketplace buffer an endless card or quote until it ran out of
 * memory, or point its resource URL at 127.0.0.1, a LAN host or the cloud metadata address (169.254.169.254) and
 * use the marketplace as a request forger into its own network. Now bodies are cut at PROBE_MAX_BODY_BYTES and, unless
 * PROBE_ALLOW_PRIVATE (the embedded stack only), a resource that resolves to a private address is refused.
 */
describe("a resource cannot make the marketplace probe buffer an endless answer or reach private addresses", function () {
  let server: Server;
  let port: number;
  let bytesSent = 0;

  before(async function () {
    server = createServer((req, res) => {
      if (req.url === "/health") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"ok":true}');
        return;
      }
      // An endless card: 64 KB chunks until the client goes away.
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(65_536, 0x20);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) bytesSent += chunk.length;
        if (!res.destroyed) res.once("drain", pump);
      };
      res.on("close", () => res.removeAllListeners("drain"));
      pump();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async function () {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const probe = (overrides: Partial<ProbeResourceParameters>) =>
    probeResource({
      resourceId,
      resourceUrl: `http://127.0.0.1:${port}`,
      escrow: "0x0000000000000000000000000000000000000001",
      token: "0x0000000000000000000000000000000000000002",
      sampleRequest: {},
      allowAgentPlaceholder: true,
      timeoutMs: 20_000,
      maxBodyBytes: 262_144,
      allowPrivate: true,
      ...overrides,
    });

  it("stops reading an endless card at the body limit, long before the timeout", async function () {
    const started = Date.now();
    const result = await probe({});
    expect(result).to.deep.include({ ok: false, check: "card" });
    expect(result.ok === false && result.reason).to.match(/over 262144 bytes/);
    expect(Date.now() - started).to.be.below(15_000);
    expect(bytesSent, "the server was cut off").to.be.below(64 * 1024 * 1024);
  });

  for (const [what, url] of [
    ["loopback", "http://127.0.0.1:PORT"],
    ["localhost (resolved, refused in the socket's lookup)", "http://localhost:PORT"],
    ["the cloud metadata address", "http://169.254.169.254"],
    ["a LAN address", "http://192.168.0.10"],
    ["an IPv6 loopback", "http://[::1]:PORT"],
    ["an IPv4-mapped loopback", "http://[::ffff:127.0.0.1]:PORT"],
  ]) {
    it(`refuses ${what} unless private addresses are allowed`, async function () {
      const result = await probe({ resourceUrl: url!.replace("PORT", String(port)), allowPrivate: false });
      expect(result).to.deep.include({ ok: false, check: "health" });
      expect(result.ok === false && result.reason).to.match(/private address/);
    });
  }

  it("classifies addresses: private, loopback, link-local, CGNAT, multicast, ULA are private; public ones are not", function () {
    for (const a of ["10.1.2.3", "172.16.0.1", "100.64.1.1", "0.0.0.0", "224.0.0.1", "fd00::1", "fe80::1", "::", "::1"])
      expect(isPrivateAddress(a), a).to.equal(true);
    for (const a of ["203.0.113.7", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"])
      expect(isPrivateAddress(a), a).to.equal(false);
  });
});
