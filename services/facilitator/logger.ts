import type { Logger } from "pino";
import { pino } from "pino";

/** Paths that may hold a secret; pino replaces them before a line is written. */
export const REDACTED_PATHS = [
  "signature",
  "*.signature",
  "paymentPayload",
  "*.paymentPayload",
  "authorization",
  "*.authorization",
  "headers.authorization",
  "req.headers.authorization",
  'req.headers["x-resource-auth"]',
  'req.headers["x-payment"]',
  'req.headers["payment-signature"]',
  "privateKey",
  "*.privateKey",
  "token",
  "*.token",
];

/**
 * The service logger: JSON lines, secrets redacted. Request bodies are never logged.
 * @example const logger = createLogger("facilitator", "info")
 */
export function createLogger(service: string, level: string, destination?: pino.DestinationStream): Logger {
  return pino({ name: service, level, redact: { paths: REDACTED_PATHS, censor: "[redacted]" } }, destination);
}
