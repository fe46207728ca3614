import { z } from "zod";
import type { ErrorCode } from "../reasons.ts";

/** The body of every 4xx/5xx except the 402 quote; any snake_case code parses, so newer codes stay readable. */
export const errorBodySchema = z.strictObject({
  error: z.strictObject({
    code: z.string().regex(/^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/, "code must be snake_case"),
    message: z.string().min(1),
  }),
});

/** An error body. */
export type ErrorBody = z.output<typeof errorBodySchema>;

/**
 * Builds an error body from one of the shared codes.
 * @example errorBody('no_reservation', 'No reservation exists for this idemKey.')
 */
export function errorBody(code: ErrorCode, message: string): { error: { code: ErrorCode; message: string } } {
  return { error: { code, message } };
}
