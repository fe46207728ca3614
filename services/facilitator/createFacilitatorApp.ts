import type { RequestListener } from "node:http";
import Router from "@koa/router";
import Koa from "koa";
import type { Hex } from "viem";
import { bearerTokenOf } from "../http/bearerToken.ts";
import { errorBodies } from "../http/errorBodies.ts";
import { HttpError } from "../http/httpError.ts";
import { listen } from "../http/listen.ts";
import { parseWith } from "../http/parseWith.ts";
import { jsonBody } from "../http/readJsonBody.ts";
import { readRevenue } from "../projections/readRevenue.ts";
import { FACILITATOR_CALL_MAX_BYTES, HEADER_RESOURCE_AUTH } from "../protocol/constants.ts";
import { isChainUnavailable } from "./chain.ts";
import { exactPricing } from "./exactPricing.ts";
import type { FacilitatorContext } from "./facilitatorContext.ts";
import { RelayerCannotPayError } from "./relayer/relayerCannotPay.ts";
import { batchListener } from "./routes/batchListener.ts";
import type { CallerAuth } from "./routes/paymentOperations.ts";
import { authorize, PAYMENT_OPERATIONS, payerOf } from "./routes/paymentOperations.ts";
import { bytes32ParamSchema, resultQuerySchema } from "./routes/schemas.ts";
import { SETTLEMENT_RETRY_AFTER_SECONDS } from "./settlePayment.ts";
import { payersOf } from "./store/payersOf.ts";
import type { Reservation, StoredPayload } from "./store/reservations.ts";
import { findReservation, reservationEnd } from "./store/reservations.ts";
import { findResult } from "./store/results.ts";
import { EscrowBookBehindError } from "./verifyPayment.ts";

export type { CallerAuth };

export { HttpError, listen };

/**
 * The facilitator's own expected failures beyond the shared ones: an unreachable chain, or an escrow book that is not
 * current yet, or a relayer that cannot pay for new debits (unfunded, or the fee above its cap), is 503 with
 * Retry-After.
 */
function chainUnavailable(error: unknown): HttpError | undefined {
  if (error instanceof RelayerCannotPayError)
    return new HttpError(503, error.reason, error.shortMessage, { "Retry-After": "30" });
  if (error instanceof EscrowBookBehindError)
    return new HttpError(503, "chain_unavailable", error.message, { "Retry-After": "2" });
  if (!isChainUnavailable(error)) return undefined;
  return new HttpError(503, "chain_unavailable", "the chain cannot be reached; retry shortly", { "Retry-After": "2" });
}

/** The caller's token: `Authorization: Bearer`, else the X-Resource-Auth header. */
function tokenOf(koa: Koa.Context): string | undefined {
  return bearerTokenOf(koa.get("authorization")) ?? (koa.get(HEADER_RESOURCE_AUTH) || undefined);
}

/** The payment as reserved, as a gate compares it with the one it holds (`samePayment`). */
function paymentOf(payload: StoredPayload) {
  return { scheme: payload.scheme, authorization: payload.authorization, signature: payload.signature };
}

/**
 * Where a payment with no result yet stands: `reserved` while its call may still be served (until the reservation
 * ends), `pending` once a settle was accepted and its debit is not mined; closed (released, expired) otherwise.
 */
function openStateOf(r: Reservation, now: number): "reserved" | "pending" | undefined {
  if (r.status === "settling") return "pending";
  if (r.status === "reserved" && reservationEnd(r) > now) return "reserved";
  return undefined;
}

/** Where a stored result's settlement stands, from its settle answer (one without `status` was answered mined). */
function settlementOf(body: Record<string, unknown>): "committed" | "confirmed" | "failed" {
  return body.status === "committed" || body.status === "failed" ? body.status : "confirmed";
}

/**
 * The facilitator's HTTP surface: `POST /batch` (routes/batchListener.ts) before the Koa app of every other route.
 * @example const server = await listen(facilitatorListener(ctx, { enabled: false }, isReady), 4020, "127.0.0.1")
 */
export function facilitatorListener(
  ctx: FacilitatorContext,
  auth: CallerAuth,
  readiness: () => Promise<{ ready: boolean; [k: string]: unknown }>,
): RequestListener {
  const app = createFacilitatorApp(ctx, auth, readiness);
  return batchListener(ctx, auth, errorsOf(ctx), app.callback());
}

/** How the facilitator answers a failure, on every route. */
const errorsOf = (ctx: FacilitatorContext) => ({ logger: ctx.logger, translate: chainUnavailable });

/**
 * The facilitator's Koa app: health, readiness, verify, release, settle (each alone; many in a batch go to
 * routes/batchListener.ts), results, revenue, metrics.
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

  // Not ready: 503 with the error body every 5xx carries (`not_ready`, the reason) beside the state it was read from.
  router.get("/ready", async (koa) => {
    const state = await readiness();
    koa.status = state.ready ? 200 : 503;
    koa.body = state.ready
      ? state
      : { error: { code: "not_ready", message: String(state.reason ?? "not ready") }, ...state };
  });

  router.get("/metrics", async (koa) => {
    koa.type = ctx.metrics.registry.contentType;
    koa.body = await ctx.metrics.registry.metrics();
  });

  // Public, as /ready: chain data anyone can read, from reads cached for a block time (base fee) and a second (fee).
  router.get("/pricing/exact", async (koa) => {
    if (Object.keys(koa.query).length > 0)
      throw new HttpError(400, "invalid_request", "GET /pricing/exact takes no query parameter");
    koa.set("Cache-Control", "no-store");
    koa.body = await exactPricing(ctx);
  });

  for (const [route, operation] of Object.entries(PAYMENT_OPERATIONS))
    router.post(`/${route}`, async (koa) => {
      koa.body = await operation(ctx, auth, koa.request.body, tokenOf(koa));
    });

  router.get("/results/:idemKey", async (koa) => {
    const idemKey = parseWith(bytes32ParamSchema, koa.params.idemKey) as Hex;
    const { payer } = parseWith(resultQuerySchema, koa.query);
    const now = ctx.clock.now();
    const buyer = await payerOf(payer, () => payersOf(ctx.store, { table: "result", idemKey, now }));
    const result = buyer ? await findResult(ctx.store, { idemKey, buyer }, now) : null;
    // No result yet, and the payment still open: a call being served (`reserved`), or a settle accepted and not mined
    // (`pending`: SETTLEMENT=confirmed, or `exact`). Answered 202, so that a gate that does not hold the call (another
    // instance, or restarted) tells the buyer to retry, not that its nonce is spent.
    const reservation = !result && buyer ? await findReservation(ctx.store, { idemKey, buyer }) : null;
    const open = reservation ? openStateOf(reservation, now) : undefined;
    if (auth.enabled) authorize(auth, tokenOf(koa), (result ?? reservation)?.resourceId ?? "unknown", now);
    if (reservation && open) {
      koa.status = 202;
      koa.set("Retry-After", String(SETTLEMENT_RETRY_AFTER_SECONDS));
      koa.body = {
        idemKey: reservation.idemKey,
        resourceId: reservation.resourceId,
        payment: paymentOf(reservation.payload),
        ...(reservation.requestHash ? { requestHash: reservation.requestHash } : {}),
        settlement: open,
      };
      return;
    }
    if (!result)
      throw new HttpError(404, "not_found", "no result for this idemKey (never settled, or past its 24 h retention)");
    koa.body = {
      idemKey: result.idemKey,
      resourceId: result.resourceId,
      payment: result.payment ? paymentOf(result.payment) : undefined,
      // The request the payment was reserved for (absent when its gate sent none): a gate replays the result only to
      // that same request.
      ...(result.requestHash ? { requestHash: result.requestHash } : {}),
      response: result.response,
      receipt: result.receipt,
      // committed (answered, debit not mined yet), confirmed (mined: the receipt names the transaction) or failed
      // (a committed debit whose window closed unmined; `failure` says why).
      settlement: settlementOf(result.body),
      // A committed debit this instance's relayer holds until its batch pays for itself (relayer/holdPolicy.ts).
      ...(buyer && ctx.relayer.holding(buyer, idemKey) ? { held: true } : {}),
      ...(typeof result.body.failure === "string" ? { failure: result.body.failure } : {}),
      settledAt: new Date(result.settledAt * 1000).toISOString(),
      expiresAt: new Date(result.expiresAt * 1000).toISOString(),
    };
  });

  router.get("/revenue/:resourceId", async (koa) => {
    const resourceId = parseWith(bytes32ParamSchema, koa.params.resourceId) as Hex;
    authorize(auth, tokenOf(koa), resourceId, ctx.clock.now());
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
  app.use(errorBodies(errorsOf(ctx)));
  // A single call is at most FACILITATOR_CALL_MAX_BYTES (a batch, read by batchListener, FACILITATOR_BATCH_MAX_BYTES).
  app.use(jsonBody({ maxBytes: FACILITATOR_CALL_MAX_BYTES }));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
