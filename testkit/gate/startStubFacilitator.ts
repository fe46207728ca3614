import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { bodyParser } from "@koa/bodyparser";
import Koa from "koa";
import { listen } from "../../services/http/listen.ts";
import { encodeBase64Json } from "../../services/protocol/base64.ts";

/** A facilitator stand-in that accepts every payment: its URL and `close`. */
export type StubFacilitator = { url: string; server: Server; close(): Promise<void> };

/**
 * Starts a stub facilitator on a free loopback port: `/verify` reserves every payment (payer and idemKey from its
 * authorization), `/settle` succeeds at once with a stub receipt, `/ready` and anything else answer ready. What a
 * gate costs per call without a chain or a store: benchmarks only, never a test of money.
 * @example const stub = await startStubFacilitator(); createGate({ ..., facilitatorUrl: stub.url })
 */
export async function startStubFacilitator(): Promise<StubFacilitator> {
  const app = new Koa();
  app.use(bodyParser({ enableTypes: ["json"], jsonLimit: "5mb" }));
  app.use((koa) => {
    if (koa.path === "/verify") {
      const { authorization } = (koa.request.body as { paymentPayload: { authorization: Record<string, string> } })
        .paymentPayload;
      koa.body = {
        isValid: true,
        payer: authorization.buyer ?? authorization.from,
        idemKey: authorization.nonce,
        reserved: authorization.maxAmount ?? authorization.value,
        expiresAt: new Date().toISOString(),
      };
    } else if (koa.path === "/settle") {
      koa.body = { success: true, receipt: encodeBase64Json({ success: true, stub: true }) };
    } else koa.body = { ready: true };
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
