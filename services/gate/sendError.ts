import type { Context } from "koa";

/**
 * Answers with the shared error body `{ error: { code, message } }` (every 4xx/5xx except the 402 quote).
 * @example sendError(koa, 415, 'unsupported_media_type', 'Content-Type must be application/json')
 */
export function sendError(
  koa: Context,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  koa.status = status;
  koa.set(headers);
  koa.body = { error: { code, message } };
}
