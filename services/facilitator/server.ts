import type { Server } from "node:http";
import { bodyParser } from "@koa/bodyparser";
import Router from "@koa/router";
import Koa from "koa";
import type { Hex } from "viem";
import { z } from "zod";
import { HEADER_RESOURCE_AUTH } from "../protocol/constants.ts";
import { verifyCallerToken } from "../protocol/callerToken.ts";
import { normalizePaymentPayload } from "../protocol/schemas/paymentPayload.ts";
import type { ErrorCode } from "../protocol/reasons.ts";
import { isChainUnavailable } from "./chain.ts";
import type { FacilitatorContext } from "./context.ts";
import { releasePayment } from "./releasePayment.ts";
import { bytes32ParamSchema, releaseRequestSchema, settleRequestSchema, verifyRequestSchema } from "./routes/schemas.ts";
import { settlePayment } from "./settlePayment.ts";
import { findResult } from "./store/results.ts";
import { verifyPayment } from "./verifyPayment.ts";

export type CallerAuth = { enabled: false } | { enabled: true; secret: string | undefined };

/** An HTTP error with the shared error body; thrown by routes, rendered by `errorBodies`. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly headers: Record<string, string>;
  constructor(status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** Renders every failure as `{ error: { code, message } }`; an unexpected one is logged and becomes a bare 500. */
function errorBodies(ctx: FacilitatorContext): Koa.Middleware {
  return async (koa, next) => {
    try {
      await next();
      if (koa.status === 404 && koa.body === undefined) throw new HttpError(404, "not_found", "no such route");
    } catch (error) {
      const e = error as { status?: number; expose?: boolean; type?: string; message?: string };
      if (error instanceof HttpError) {
        koa.status = error.status;
        koa.set(error.headers);
        koa.body = { error: { code: error.code, message: error.message } };
      } else if (isChainUnavailable(error)) {
        koa.status = 503;
        koa.set("Retry-After", "2");
        koa.body = { error: { code: "chain_unavailable", message: "the chain cannot be reached; retry shortly" } };
      } else if (e.status && e.status >= 400 && e.status < 500) {
        koa.status = e.status === 415 ? 415 : e.status === 413 ? 413 : 400;
        const code = koa.status === 415 ? "unsupported_media_type" : koa.status === 413 ? "payload_too_large" : "invalid_request";
        koa.body = { error: { code, message: e.expose && e.message ? e.message : "the request body could not be read" } };
      } else {
        ctx.logger.error({ err: e.message, route: koa.path }, "unexpected error");
        koa.status = 500;
        koa.body = { error: { code: "internal_error", message: "internal error" } };
      }
    }
  };
}

function parse<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new HttpError(400, "invalid_request", z.prettifyError(result.error));
  return result.data;
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
 * The facilitator's HTTP surface (Koa): health, readiness, verify, release, settle, results, metrics.
 * Routes only translate HTTP to the operations; outcomes of a well-formed request are data with status 200.
 * @example const app = createFacilitatorApp(ctx, { enabled: false }, isReady)
 */
export function createFacilitatorApp(ctx: FacilitatorContext, auth: CallerAuth, readiness: () => Promise<{ ready: boolean; [k: string]: unknown }>) {
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
    const request = parse(verifyRequestSchema, koa.request.body);
    authorize(koa, auth, request.resourceId, ctx.clock.now());
    const normalized = normalizePaymentPayload(request.paymentPayload);
    const result = normalized.ok
      ? await verifyPayment(ctx, { payload: normalized.payload, resourceId: request.resourceId, maxTimeoutSeconds: request.maxTimeoutSeconds })
      : { isValid: false as const, invalidReason: "invalid_payload" as const, invalidMessage: normalized.message };
    ctx.metrics.verify.inc({ outcome: result.isValid ? "valid" : result.invalidReason });
    koa.body = result;
  });

  router.post("/release", async (koa) => {
    const request = parse(releaseRequestSchema, koa.request.body);
    authorize(koa, auth, request.resourceId, ctx.clock.now());
    const outcome = await releasePayment(ctx, request);
    if (outcome.kind === "no_reservation") throw new HttpError(409, "no_reservation", outcome.message);
    if (outcome.kind === "already_settled") throw new HttpError(409, "already_settled", outcome.message);
    koa.body = outcome.body;
  });

  router.post("/settle", async (koa) => {
    const request = parse(settleRequestSchema, koa.request.body);
    authorize(koa, auth, request.resourceId, ctx.clock.now());
    const outcome = await settlePayment(ctx, {
      idemKey: request.idemKey,
      resourceId: request.resourceId,
      amount: BigInt(request.amount),
      response: { status: request.response.status, contentType: request.response.contentType, body: request.response.body },
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
    const idemKey = parse(bytes32ParamSchema, koa.params.idemKey) as Hex;
    const now = ctx.clock.now();
    const result = await findResult(ctx.store, idemKey, now);
    if (auth.enabled) authorize(koa, auth, result?.resourceId ?? "unknown", now);
    if (!result) throw new HttpError(404, "not_found", "no result for this idemKey (never settled, or past its 24 h retention)");
    koa.body = {
      idemKey: result.idemKey,
      resourceId: result.resourceId,
      response: result.response,
      receipt: result.receipt,
      settledAt: new Date(result.settledAt * 1000).toISOString(),
      expiresAt: new Date(result.expiresAt * 1000).toISOString(),
    };
  });

  app.use(async (koa, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = (koa as Koa.Context & { _matchedRoute?: string })._matchedRoute ?? "unmatched";
      ctx.metrics.requestSeconds.observe({ route: String(route), status: String(koa.status) }, (performance.now() - started) / 1000);
    }
  });
  app.use(errorBodies(ctx));
  app.use(bodyParser({ enableTypes: ["json"], jsonLimit: "256kb", encoding: "utf-8" }));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/** Starts listening; resolves with the server once it accepts connections. */
export function listen(app: Koa, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once("listening", () => resolve(server));
    server.once("error", reject);
  });
}
