import { bodyParser } from "@koa/bodyparser";
import Router from "@koa/router";
import Koa from "koa";
import type { Hex } from "viem";
import { errorBodies } from "../http/errorBodies.ts";
import { HttpError } from "../http/httpError.ts";
import { listen } from "../http/listen.ts";
import { parseWith } from "../http/parseWith.ts";
import { readRevenue } from "../projections/readRevenue.ts";
import { verifyCallerToken } from "../protocol/callerToken.ts";
import { HEADER_RESOURCE_AUTH } from "../protocol/constants.ts";
import { normalizePaymentPayload } from "../protocol/schemas/paymentPayload.ts";
import { isChainUnavailable } from "./chain.ts";
import type { FacilitatorContext } from "./facilitatorContext.ts";
import { releasePayment } from "./releasePayment.ts";
import {
  bytes32ParamSchema,
  releaseRequestSchema,
  resultQuerySchema,
  settleRequestSchema,
  verifyRequestSchema,
} from "./routes/schemas.ts";
import { settlePayment } from "./settlePayment.ts";
import { payersOf } from "./store/payersOf.ts";
import { findResult } from "./store/results.ts";
import { EscrowBookBehindError, verifyPayment } from "./verifyPayment.ts";

export type CallerAuth = { enabled: false } | { enabled: true; secret: string | undefined };

export { HttpError, listen };

/**
 * The facilitator's own expected failures beyond the shared ones: an unreachable chain, or an escrow book that is not
 * current yet, is 503 with Retry-After.
 */
function chainUnavailable(error: unknown): HttpError | undefined {
  if (error instanceof EscrowBookBehindError)
    return new HttpError(503, "chain_unavailable", error.message, { "Retry-After": "2" });
  if (!isChainUnavailable(error)) return undefined;
  return new HttpError(503, "chain_unavailable", "the chain cannot be reached; retry shortly", { "Retry-After": "2" });
}

function authorize(koa: Koa.Context, auth: CallerAuth, resourceId: string, now: number): void {
  if (!auth.enabled) return;
  const header = koa.get("authorization");
  const token = header.startsWith("Bearer ") ? header.slice(7) : koa.get(HEADER_RESOURCE_AUTH) || undefined;
  if (!auth.secret) throw new HttpError(401, "unauthorized", "caller auth is enabled but no secret is configured");
  const verdict = verifyCallerToken({ token, secret: auth.secret, resourceId, now });
  if (!verdict.ok) throw new HttpError(401, "unauthorized", `caller token refused: ${verdict.reason}`);
}

/**
 * Whose reservation or result a request means: the `payer` it names, else the one buyer holding the nonce (undefined:
 * none). A nonce is each buyer's own, so two may hold one; a request naming neither is refused, never guessed.
 */
async function payerOf(payer: Hex | undefined, holders: () => Promise<string[]>): Promise<Hex | undefined> {
  if (payer) return payer.toLowerCase() as Hex;
  const found = await holders();
  if (found.length > 1)
    throw new HttpError(409, "payer_required", "more than one buyer holds this idemKey: name the payer");
  return found[0] as Hex | undefined;
}

const NO_RESERVATION = "no reservation for this idemKey and resource";

/** Where a stored result's settlement stands, from its settle answer (one without `status` was answered mined). */
function settlementOf(body: Record<string, unknown>): "committed" | "confirmed" | "failed" {
  return body.status === "committed" || body.status === "failed" ? body.status : "confirmed";
}

/**
 * The facilitator's HTTP surface (Koa): health, readiness, verify, release, settle, results, metrics.
 * Routes only translate HTTP to the operations; outcomes of a well-formed request are data with status 200.
 * @example const app = createFacilitatorApp(ctx, { enabled: false }, isReady)
 */
export function createFacilitatorApp(
  ctx: FacilitatorContext,
  auth: CallerAuth,
  readiness: () => Promise<{ ready: boolean; [k: string]: unknown }>,
) {
  const app = new Koa();
  const router = new Router();

  router.get("/health", (koa) => {
    koa.body = { ok: true, service: "facilitator" };
  });

  router.get("/ready", async (koa) => {
    const state = await readiness();
    koa.status = state.ready ? 200 : 503;
    koa.body = state;
  });

  router.get("/metrics", async (koa) => {
    koa.type = ctx.metrics.registry.contentType;
    koa.body = await ctx.metrics.registry.metrics();
  });

  router.post("/verify", async (koa) => {
    const request = parseWith(verifyRequestSchema, koa.request.body);
    authorize(koa, auth, request.resourceId, ctx.clock.now());
    const normalized = normalizePaymentPayload(request.paymentPayload);
    const result = normalized.ok
      ? await verifyPayment(ctx, {
          payload: normalized.payload,
          resourceId: request.resourceId,
          maxTimeoutSeconds: request.maxTimeoutSeconds,
          requestHash: request.requestHash,
        })
      : { isValid: false as const, invalidReason: "invalid_payload" as const, invalidMessage: normalized.message };
    ctx.metrics.verify.inc({ outcome: result.isValid ? "valid" : result.invalidReason });
    koa.body = result;
  });

  router.post("/release", async (koa) => {
    const request = parseWith(releaseRequestSchema, koa.request.body);
    authorize(koa, auth, request.resourceId, ctx.clock.now());
    const buyer = await payerOf(request.payer, () =>
      payersOf(ctx.store, { table: "reservation", idemKey: request.idemKey, resourceId: request.resourceId }),
    );
    if (!buyer) throw new HttpError(409, "no_reservation", NO_RESERVATION);
    const outcome = await releasePayment(ctx, { ...request, buyer });
    if (outcome.kind === "no_reservation") throw new HttpError(409, "no_reservation", outcome.message);
    if (outcome.kind === "already_settled") throw new HttpError(409, "already_settled", outcome.message);
    koa.body = outcome.body;
  });

  router.post("/settle", async (koa) => {
    const request = parseWith(settleRequestSchema, koa.request.body);
    authorize(koa, auth, request.resourceId, ctx.clock.now());
    const buyer = await payerOf(request.payer, () =>
      payersOf(ctx.store, { table: "reservation", idemKey: request.idemKey, resourceId: request.resourceId }),
    );
    if (!buyer) throw new HttpError(409, "no_reservation", NO_RESERVATION);
    const outcome = await settlePayment(ctx, {
      idemKey: request.idemKey,
      buyer,
      resourceId: request.resourceId,
      amount: BigInt(request.amount),
      response: {
        status: request.response.status,
        contentType: request.response.contentType,
        body: request.response.body,
      },
    });
    if (outcome.kind === "no_reservation") throw new HttpError(409, "no_reservation", outcome.message);
    if (outcome.kind === "settlement_failed") throw new HttpError(409, "settlement_failed", outcome.message);
    if (outcome.kind === "pending") {
      throw new HttpError(503, "settlement_pending", "the debit is not confirmed yet; retry the same settle", {
        "Retry-After": String(outcome.retryAfterSeconds),
      });
    }
    koa.body = outcome.body;
  });

  router.get("/results/:idemKey", async (koa) => {
    const idemKey = parseWith(bytes32ParamSchema, koa.params.idemKey) as Hex;
    const { payer } = parseWith(resultQuerySchema, koa.query);
    const now = ctx.clock.now();
    const buyer = await payerOf(payer, () => payersOf(ctx.store, { table: "result", idemKey, now }));
    const result = buyer ? await findResult(ctx.store, { idemKey, buyer }, now) : null;
    if (auth.enabled) authorize(koa, auth, result?.resourceId ?? "unknown", now);
    if (!result)
      throw new HttpError(404, "not_found", "no result for this idemKey (never settled, or past its 24 h retention)");
    const payment = result.payment ?? undefined;
    koa.body = {
      idemKey: result.idemKey,
      resourceId: result.resourceId,
      payment: payment && {
        scheme: payment.scheme,
        authorization: payment.authorization,
        signature: payment.signature,
      },
      // The request the payment was reserved for (absent when its gate sent none): a gate replays the result only to
      // that same request.
      ...(result.requestHash ? { requestHash: result.requestHash } : {}),
      response: result.response,
      receipt: result.receipt,
      // committed (answered, debit not mined yet), confirmed (mined: the receipt names the transaction) or failed
      // (a committed debit whose window closed unmined; `failure` says why).
      settlement: settlementOf(result.body),
      ...(typeof result.body.failure === "string" ? { failure: result.body.failure } : {}),
      settledAt: new Date(result.settledAt * 1000).toISOString(),
      expiresAt: new Date(result.expiresAt * 1000).toISOString(),
    };
  });

  router.get("/revenue/:resourceId", async (koa) => {
    const resourceId = parseWith(bytes32ParamSchema, koa.params.resourceId) as Hex;
    authorize(koa, auth, resourceId, ctx.clock.now());
    if (!ctx.projections) throw new HttpError(503, "indexer_unavailable", "no indexer is configured (INDEXER_URL)");
    const revenue = await readRevenue(ctx.projections, resourceId).catch((error: Error) => {
      throw new HttpError(503, "indexer_unavailable", `the indexer cannot be read: ${error.message.split("\n")[0]}`, {
        "Retry-After": "2",
      });
    });
    if (!revenue) throw new HttpError(404, "not_found", "no resource with this id is registered on chain");
    koa.body = revenue;
  });

  app.use(async (koa, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = (koa as Koa.Context & { _matchedRoute?: string })._matchedRoute ?? "unmatched";
      ctx.metrics.requestSeconds.observe(
        { route: String(route), status: String(koa.status) },
        (performance.now() - started) / 1000,
      );
    }
  });
  app.use(errorBodies({ logger: ctx.logger, translate: chainUnavailable }));
  app.use(bodyParser({ enableTypes: ["json"], jsonLimit: "256kb", encoding: "utf-8" }));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
