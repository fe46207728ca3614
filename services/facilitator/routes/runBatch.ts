import type { ErrorBodiesParameters } from "../../http/errorBodies.ts";
import { errorAnswer } from "../../http/errorBodies.ts";
import { parseWith } from "../../http/parseWith.ts";
import type { FacilitatorContext } from "../facilitatorContext.ts";
import type { CallerAuth } from "./paymentOperations.ts";
import { PAYMENT_OPERATIONS } from "./paymentOperations.ts";
import { batchRequestSchema } from "./schemas.ts";

/** One call's answer in a batch: the status and body its own route would have answered, and its Retry-After. */
export type BatchAnswer = { status: number; body: unknown; retryAfter?: string };

/**
 * `POST /batch`: runs every call of a batch at once (so the store groups their statements, as it groups concurrent
 * requests) and answers each, in the calls' order, exactly as its own route would: a call refused (401, 400, 409,
 * 503) fails alone, never its neighbours. Only a malformed envelope fails the whole batch (400).
 * @example const { answers } = await runBatch(ctx, auth, koa.request.body, { logger, translate })
 */
export async function runBatch(
  ctx: FacilitatorContext,
  auth: CallerAuth,
  body: unknown,
  errors: ErrorBodiesParameters,
): Promise<{ answers: BatchAnswer[] }> {
  const { calls } = parseWith(batchRequestSchema, body);
  const answers = await Promise.all(
    calls.map(async ({ route, token, body: request }): Promise<BatchAnswer> => {
      try {
        return { status: 200, body: await PAYMENT_OPERATIONS[route](ctx, auth, request, token) };
      } catch (error) {
        const { status, headers, body: failure } = errorAnswer(error, errors, `/batch ${route}`);
        const retryAfter = headers["Retry-After"];
        return { status, body: failure, ...(retryAfter ? { retryAfter } : {}) };
      }
    }),
  );
  return { answers };
}
