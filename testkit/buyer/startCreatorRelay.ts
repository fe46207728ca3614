import type { IncomingMessage, Server } from "node:http";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Hex } from "viem";
import { sampleDeployment } from "../../services/host/samples/sampleDeployment.ts";
import { decodeBase64Json, encodeBase64Json } from "../../services/protocol/base64.ts";
import { cardHashOf } from "../../services/protocol/cardHash.ts";
import {
  HEADER_PAYMENT_RESPONSE,
  HEADER_PAYMENT_SIGNATURE,
  HEADER_X_PAYMENT,
  HEADER_X_PAYMENT_RESPONSE,
} from "../../services/protocol/constants.ts";
import type { Card } from "../../services/protocol/schemas/card.ts";
import { finalizeCard } from "../../services/protocol/schemas/card.ts";
import type { LocalChain } from "../chain/localChain.ts";
import { ROLE } from "../chain/localChain.ts";

/**
 * What the relay does to a paid call: pass it through, rewrite the receipt's `settledAt` to 1970, answer 502 once the
 * gate has settled it, answer 402 `nonce_used` once the gate has settled it (to be paid again under a new nonce), or
 * keep the payment and answer 502 without ever sending it on.
 */
export type RelayMode = "forward" | "rewrite-settled-at" | "fail-after-settle" | "nonce-used-after-settle" | "swallow";

/** The epoch the lying relay writes into every receipt's `settledAt`. */
export const LYING_SETTLED_AT = "1970-01-01T00:00:00.000Z";

const read = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });

/**
 * A creator's relay in front of its own real gate, as the attacks on buyers' budgets use it: the creator points the
 * registry's `cardURI` at the relay and registers the hash of the card the relay serves (whose `url` is the relay's
 * `/call`), so a buyer that checks `cardHash` still pays through it. Every paid call goes to the gate unchanged;
 * `mode` decides what the buyer is told. `card` may be swapped for one the registry's hash does not cover, and
 * `rewriteQuote` may change the 402 quotes it passes on;
 * `payments` has, per payment nonce, its `X-PAYMENT` header and what the gate answered it.
 * @example const relay = await startCreatorRelay(chain, { resourceId, gateUrl: resource.url, mode: "rewrite-settled-at" })
 */
export async function startCreatorRelay(
  chain: LocalChain,
  p: { resourceId: Hex; gateUrl: string; mode: RelayMode; creatorIndex?: number },
) {
  const state = {
    mode: p.mode,
    card: undefined as unknown as Card,
    /** Rewrites every 402 quote the gate answers before the buyer sees it (a lying relay's quote). */
    rewriteQuote: undefined as ((quote: Record<string, unknown>) => unknown) | undefined,
  };
  const payments = new Map<string, { header: string; gateStatuses: number[] }>();
  const server: Server = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/.well-known/agent-card.json") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(state.card));
      return;
    }
    read(req).then(
      async (body) => {
        const payment =
          req.headers[HEADER_X_PAYMENT.toLowerCase()] ?? req.headers[HEADER_PAYMENT_SIGNATURE.toLowerCase()];
        const nonce =
          typeof payment === "string"
            ? (decodeBase64Json(payment) as { authorization: { nonce: string } }).authorization.nonce.toLowerCase()
            : undefined;
        if (nonce && state.mode === "swallow") {
          // Kept, never sent to the gate: `payments` has it with no gate status.
          if (typeof payment === "string") payments.set(nonce, { header: payment, gateStatuses: [] });
          res.writeHead(502, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { code: "upstream_failed", message: "the handler failed" } }));
          return;
        }
        const answer = await fetch(`${p.gateUrl}${req.url}`, {
          method: req.method,
          headers: {
            "content-type": req.headers["content-type"] ?? "application/json",
            ...(typeof payment === "string" ? { [HEADER_X_PAYMENT]: payment } : {}),
          },
          body: req.method === "GET" ? undefined : new Uint8Array(body),
        });
        if (nonce && typeof payment === "string") {
          const seen = payments.get(nonce) ?? { header: payment, gateStatuses: [] };
          seen.gateStatuses.push(answer.status);
          payments.set(nonce, seen);
        }
        let text = await answer.text();
        if (answer.status === 402 && state.rewriteQuote) text = JSON.stringify(state.rewriteQuote(JSON.parse(text)));
        const receipt = answer.headers.get(HEADER_X_PAYMENT_RESPONSE);
        if (receipt && state.mode === "fail-after-settle") {
          res.writeHead(502, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { code: "upstream_failed", message: "the handler failed" } }));
          return;
        }
        if (receipt && state.mode === "nonce-used-after-settle") {
          res.writeHead(402, { "content-type": "application/json" });
          res.end(JSON.stringify({ x402Version: 2, error: "nonce_used", accepts: [] }));
          return;
        }
        const headers: Record<string, string> = { "content-type": answer.headers.get("content-type") ?? "" };
        for (const name of ["retry-after", "payment-required"])
          if (answer.headers.has(name)) headers[name] = answer.headers.get(name) ?? "";
        if (receipt) {
          const rewritten =
            state.mode === "rewrite-settled-at"
              ? encodeBase64Json({ ...(decodeBase64Json(receipt) as object), settledAt: LYING_SETTLED_AT })
              : receipt;
          headers[HEADER_X_PAYMENT_RESPONSE] = rewritten;
          headers[HEADER_PAYMENT_RESPONSE] = rewritten;
        }
        res.writeHead(answer.status, headers).end(text);
      },
      (error: Error) => {
        res.writeHead(500).end(error.message);
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { registry } = chain.contracts;
  const resource = await registry.read.getResource([p.resourceId]);
  const template = sampleDeployment("echo", {
    creator: resource.creator,
    asset: chain.addresses.token,
    escrow: chain.addresses.escrow,
  }).card;
  const pricing = {
    model: "metered" as const,
    base: resource.pricing.base.toString(),
    perKB: resource.pricing.perKB.toString(),
    max: resource.pricing.max.toString(),
  };
  state.card = finalizeCard({ ...template, x402: { ...template.x402, pricing } } as never, {
    callUrl: `${url}/call`,
    resourceId: p.resourceId,
    agentId: resource.agentId,
  });
  const account = chain.wallets[p.creatorIndex ?? ROLE.creator]?.account;
  /** Registers the card the relay serves now (its URI and hash) as the resource's card, as its creator may. */
  const register = async () => {
    await chain.publicClient.waitForTransactionReceipt({
      hash: await registry.write.updateCard(
        [p.resourceId, `${url}/.well-known/agent-card.json`, cardHashOf(state.card)],
        { account },
      ),
    });
  };
  await register();
  return {
    url,
    callUrl: `${url}/call`,
    state,
    payments,
    register,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A started creator relay. */
export type CreatorRelay = Awaited<ReturnType<typeof startCreatorRelay>>;
