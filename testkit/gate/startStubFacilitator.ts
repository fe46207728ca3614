import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import Koa from "koa";
import { listen } from "../../services/http/listen.ts";
import { jsonBody } from "../../services/http/readJsonBody.ts";
import { encodeBase64Json } from "../../services/protocol/base64.ts";

/** A facilitator stand-in that accepts every payment: its URL and `close`. */
export type StubFacilitator = { url: string; server: Server; close(): Promise<void> };

/**
 * Starts a stub facilitator on a free loopback port: `/verify` reserves every payment (payer and idemKey from its
 * authorization), `/settle` succeeds at once with a stub receipt, `/release` releases, `/batch` answers each of its
 * calls so, `/pricing/exact` asks no more than the cap, `/ready` and anything else answer ready. What a
 * gate costs per call without a chain or a store: benchmarks only, never a test of money.
 * @example const stub = await startStubFacilitator(); createGate({ ..., facilitatorUrl: stub.url })
 */
export async function startStubFacilitator(): Promise<StubFacilitator> {
  const app = new Koa();
  app.use(jsonBody({ maxBytes: 5_242_880 }));
  const answer = (route: string, body: unknown): unknown => {
    if (route === "verify") {
      const { authorization } = (body as { paymentPayload: { authorization: Record<string, string> } }).paymentPayload;
      return {
        isValid: true,
        payer: authorization.buyer ?? authorization.from,
        idemKey: authorization.nonce,
        reserved: authorization.maxAmount ?? authorization.value,
        expiresAt: new Date().toISOString(),
      };
    }
    if (route === "settle") return { success: true, receipt: encodeBase64Json({ success: true, stub: true }) };
    return { released: true, strikeRecorded: false };
  };
  app.use((koa) => {
    const route = koa.path.slice(1);
    if (route === "batch") {
      const { calls } = koa.request.body as { calls: { route: string; body: unknown }[] };
      koa.body = { answers: calls.map((call) => ({ status: 200, body: answer(call.route, call.body) })) };
    } else if (route === "verify" || route === "settle" || route === "release")
      koa.body = answer(route, koa.request.body);
    // Every exact amount pays for its settlement here: the quote's exact entry asks the cap.
    else if (koa.path === "/pricing/exact") koa.body = { minimumAmount: "0" };
    else koa.body = { ready: true };
  });
  const server = await listen(app, 0, "127.0.0.1");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
