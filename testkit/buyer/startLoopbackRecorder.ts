import type { Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a loopback service received. */
export type RecordedRequest = { method: string; url: string; headers: Record<string, unknown>; body: string };

/**
 * A service on the buyer's own loopback that records every request it receives and answers 200 `{}` (or, with
 * `redirectTo`, a 302 there): what a creator who names a loopback address would make the buyer post to (an admin
 * port, a local RPC, a LAN service), or a public address that redirects to one.
 * @example const victim = await startLoopbackRecorder(); … expect(victim.requests).to.deep.equal([])
 */
export async function startLoopbackRecorder(options: { redirectTo?: string } = {}) {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        headers: { ...req.headers },
        body: Buffer.concat(chunks).toString("utf8"),
      });
      if (options.redirectTo) res.writeHead(302, { location: options.redirectTo }).end();
      else res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A started loopback recorder. */
export type LoopbackRecorder = Awaited<ReturnType<typeof startLoopbackRecorder>>;
