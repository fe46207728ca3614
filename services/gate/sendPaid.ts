import type { Context } from "koa";
import { HEADER_PAYMENT_RESPONSE, HEADER_X_PAYMENT_RESPONSE } from "../protocol/constants.ts";

/**
 * Answers a settled call: the handler's JSON with the base64 receipt in `X-PAYMENT-RESPONSE` and `PAYMENT-RESPONSE`.
 * @example sendPaid(koa, 200, '{"echo":{}}', receipt)
 */
export function sendPaid(koa: Context, status: number, text: string, receipt: string): void {
  koa.status = status;
  koa.type = "application/json";
  koa.set(HEADER_X_PAYMENT_RESPONSE, receipt);
  koa.set(HEADER_PAYMENT_RESPONSE, receipt);
  koa.set("Cache-Control", "no-store");
  koa.body = text;
}
