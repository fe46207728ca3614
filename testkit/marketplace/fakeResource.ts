import type { Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Address, Hex } from "viem";
import { buildQuote } from "../../services/protocol/schemas/quote.ts";

/** What a fake resource serves; tests change it to make one check fail. */
export type FakeResourceState = {
  card: Record<string, unknown>;
  quote: {
    cap: string;
    escrow: Address;
    asset: Address;
    payTo: Hex;
    base: string;
    perKB: string;
    /** The quote's multiplier (1 unless a test changes it). */
    computeMultiplier?: number;
  };
  healthStatus: number;
  callStatus: number;
};

/**
 * A loopback stand-in for a deployed resource behind its gate: `GET /health`, the card at
 * `/.well-known/agent-card.json` (with `url` and `x402.payTo` filled, `identity.agentId` from the state), and a 402
 * quote built with services/protocol's buildQuote on `POST /call`. `state` is live; `stop()` makes it unreachable.
 * @example const resource = await startFakeResource(initialState); resource.state.quote.payTo = other
 */
export async function startFakeResource(initial: (url: string) => FakeResourceState) {
  let state: FakeResourceState | undefined;
  const server: Server = createServer((req, res) => {
    const s = state!;
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.method === "GET" && req.url === "/health") return send(s.healthStatus, { ok: s.healthStatus === 200 });
    if (req.method === "GET" && req.url === "/.well-known/agent-card.json") return send(200, s.card);
    if (req.method === "POST" && req.url === "/call") {
      req.resume();
      req.on("end", () => {
        if (s.callStatus !== 402) return send(s.callStatus, { error: { code: "invalid_request", message: "no" } });
        const quote = buildQuote({
          cap: s.quote.cap,
          asset: s.quote.asset,
          escrow: s.quote.escrow,
          resourceId: s.quote.payTo,
          pricing: {
            model: "metered",
            base: s.quote.base,
            perKB: s.quote.perKB,
            computeMultiplier: s.quote.computeMultiplier ?? 1,
            maxResponseBytes: 65_536,
            errorPrice: "0",
          },
          resource: { url: `${url}/call`, description: String(s.card.description) },
          includeExact: true,
        });
        send(402, quote);
      });
      return;
    }
    send(404, { error: { code: "not_found", message: "no such route" } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state = initial(url);
  return {
    url,
    get state(): FakeResourceState {
      return state!;
    },
    async stop(): Promise<void> {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A running fake resource. */
export type FakeResource = Awaited<ReturnType<typeof startFakeResource>>;
