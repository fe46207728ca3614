import type { RequestListener } from "node:http";
import Koa from "koa";
import { pino } from "pino";
import { errorBodies } from "../http/errorBodies.ts";
import { admitCall } from "./admitCall.ts";
import { callRoute } from "./callRoute.ts";
import { compileSchema } from "./compileSchema.ts";
import { cors } from "./cors.ts";
import { createFacilitatorClient } from "./createFacilitatorClient.ts";
import { createFailureReproducer } from "./createFailureReproducer.ts";
import { createHandlerLoad } from "./createHandlerLoad.ts";
import { createQuoteSender } from "./createQuoteSender.ts";
import { decodePayment } from "./decodePayment.ts";
import { sharedExactFloorReader } from "./exactFloorReader.ts";
import { freePaths } from "./freePaths.ts";
import type { GateMiddleware, GateRuntime, GateState } from "./gateRuntime.ts";
import { parseBody } from "./parseBody.ts";
import { createPendingSettlements } from "./pendingSettlements.ts";
import { priceResponse } from "./priceResponse.ts";
import { readBody } from "./readBody.ts";
import { releaseOnFailure } from "./releaseOnFailure.ts";
import { requireJsonContentType } from "./requireJsonContentType.ts";
import { requirePayment } from "./requirePayment.ts";
import { reservePayment } from "./reservePayment.ts";
import type { GateConfig } from "./resolveGateConfig.ts";
import { resolveGateConfig } from "./resolveGateConfig.ts";
import { runHandler } from "./runHandler.ts";
import { createSchemaCheck } from "./schemaCheck.ts";
import { settleCall } from "./settleCall.ts";
import { validateResponse } from "./validateResponse.ts";

/** The names of the gate's steps, in the order they run (PROTOCOL.md's gate table, top to bottom). */
export const GATE_STEPS = [
  "errorBodies",
  "cors",
  "freePaths",
  "callRoute",
  "requireJsonContentType",
  "readBody",
  "parseBody",
  "requirePayment",
  "decodePayment",
  "admitCall",
  "reservePayment",
  "releaseOnFailure",
  "runHandler",
  "validateResponse",
  "priceResponse",
  "settleCall",
] as const;

/** A gate for one resource: a Koa app, the steps it runs in order, a Node request listener, and `close`. */
export type Gate = {
  app: Koa<GateState>;
  steps: readonly string[];
  callback: RequestListener;
  runtime: GateRuntime;
  close(): void;
};

/**
 * Creates the paid sidecar of one resource from trusted configuration: free card, health and readiness; and
 * `POST /call` through content type (415), size (413), JSON and request schema (400), payment header (402),
 * decoding and binding (402), the resource's bound on calls in progress (503), reservation (402 / replay 200 / 409),
 * the handler under a wall-time limit, response validation (release with a strike, 502), metered price and
 * settlement (200 with receipt / 503).
 * @throws {GateConfigError} when the configuration, the card or a schema is invalid (at start-up, never per request).
 * @example const gate = createGate({ resourceId, escrow, token, cap: 50000n, pricing, requestSchema, responseSchema, card, callUrl, facilitatorUrl, handler })
 */
export function createGate(input: GateConfig): Gate {
  const config = resolveGateConfig(input);
  const logger = input.logger ?? pino({ name: "gate", level: "info" });
  const load = createHandlerLoad();
  const limits = { timeoutMs: config.handlerTimeoutMs, maxResponseBytes: config.pricing.maxResponseBytes };
  const validateRequest = compileSchema(config.requestSchema, "requestSchema");
  const validateResponseSchema = compileSchema(config.responseSchema, "responseSchema");
  const checkRequest = createSchemaCheck(config.requestSchema, validateRequest);
  const checkResponse = createSchemaCheck(config.responseSchema, validateResponseSchema);
  const exactFloor = sharedExactFloorReader(config.facilitatorUrl);
  const runtime: GateRuntime = {
    config,
    facilitator: createFacilitatorClient({ url: config.facilitatorUrl, token: config.facilitatorToken }),
    logger,
    checkRequest,
    checkResponse,
    sendQuote: createQuoteSender(config, {
      validateRequest,
      validateResponse: validateResponseSchema,
      logger,
      exactFloor: exactFloor.reader,
    }),
    exactFloor: exactFloor.reader,
    load,
    reproduce: createFailureReproducer({
      handler: config.handler,
      alone: config.alone,
      load,
      limits,
      checkResponse,
      sampleRequest: config.sampleRequest,
      ready: config.ready ?? (() => true),
    }),
    inFlight: new Map(),
    pending: createPendingSettlements(config.pendingMaxBytes),
  };
  const steps: Record<(typeof GATE_STEPS)[number], GateMiddleware> = {
    errorBodies: errorBodies({ logger }),
    cors: cors(),
    freePaths: freePaths(runtime),
    callRoute: callRoute(),
    requireJsonContentType: requireJsonContentType(),
    readBody: readBody(config.maxBodyBytes),
    parseBody: parseBody(runtime.checkRequest),
    requirePayment: requirePayment(runtime),
    decodePayment: decodePayment(runtime),
    admitCall: admitCall(config.maxConcurrentCalls),
    reservePayment: reservePayment(runtime),
    releaseOnFailure: releaseOnFailure(runtime),
    runHandler: runHandler(config.handler, load, limits),
    validateResponse: validateResponse(runtime.checkResponse, config.pricing.maxResponseBytes),
    priceResponse: priceResponse(config),
    settleCall: settleCall(runtime),
  };
  const app = new Koa<GateState>();
  app.silent = true;
  for (const name of GATE_STEPS) app.use(steps[name]);
  const close = () => {
    runtime.facilitator.close();
    exactFloor.release();
  };
  return { app, steps: GATE_STEPS, callback: app.callback(), runtime, close };
}
