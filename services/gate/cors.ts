import {
  HEADER_PAYMENT_REQUIRED,
  HEADER_PAYMENT_RESPONSE,
  HEADER_PAYMENT_SIGNATURE,
  HEADER_RESOURCE_AUTH,
  HEADER_X_PAYMENT,
  HEADER_X_PAYMENT_RESPONSE,
} from "../protocol/constants.ts";
import type { GateMiddleware } from "./gateRuntime.ts";

/** Response headers a browser client may read. */
export const EXPOSED_HEADERS = [
  HEADER_PAYMENT_REQUIRED,
  HEADER_PAYMENT_RESPONSE,
  HEADER_X_PAYMENT_RESPONSE,
  "Retry-After",
].join(", ");

const allowedHeaders = [
  "Content-Type",
  HEADER_X_PAYMENT,
  HEADER_PAYMENT_SIGNATURE,
  "Authorization",
  HEADER_RESOURCE_AUTH,
  "Access-Control-Expose-Headers",
].join(", ");

/**
 * CORS for browser agents: any origin (no credentials), the payment headers exposed, preflight answered 204.
 * @example app.use(cors())
 */
export function cors(): GateMiddleware {
  return async (koa, next) => {
    koa.set("Access-Control-Allow-Origin", "*");
    koa.set("Access-Control-Expose-Headers", EXPOSED_HEADERS);
    if (koa.method === "OPTIONS") {
      koa.set("Access-Control-Allow-Methods", "GET, HEAD, POST, OPTIONS");
      koa.set("Access-Control-Allow-Headers", allowedHeaders);
      koa.set("Access-Control-Max-Age", "600");
      koa.status = 204;
      return;
    }
    await next();
  };
}
