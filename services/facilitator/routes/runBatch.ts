import type { ErrorBodiesParameters } from "../../http/errorBodies.ts";
import { errorAnswer } from "../../http/errorBodies.ts";
import { parseWith } from "../../http/parseWith.ts";
import type { FacilitatorContext } from "../facilitatorContext.ts";
import { BookCatchUpDeferredError } from "../verifyPayment.ts";
import type { CallerAuth } from "./paymentOperations.ts";
import { PAYMENT_OPERATIONS } from "./paymentOperations.ts";
import { batchRequestSchema } from "./schemas.ts";

/** One call's answer in a batch: the status and body its own route would have answered, and its Retry-After. */
export type BatchAnswer = { status: number; body: unknown; retryAfter?: string };

/**
 * One call's frame of a streamed batch: its index in the batch and its answer, or `alone`: a verify that waits for
 * the escrow book to catch up, which a batch never does, to be sent on its own route.
 */
export type BatchFrame = { index: number } & (BatchAnswer | { alone: true });

/** The calls of a `POST /batch` body; a malformed envelope is refused whole (400), before any call runs. */
export const parseBatch = (body: unknown) => parseWith(batchRequestSchema, body).calls;

/** The calls of a batch, as parseBatch reads them. */
export type BatchCalls = ReturnType<typeof parseBatch>;

/**
 * `POST /batch`: runs every call of a batch at once (so the store groups their statements, as it groups concurrent
 * requests) and hands each one's frame to `onFrame` as soon as that call is done, answered exactly as its own route
 * would: a call refused (401, 400, 409, 503) fails alone, never its neighbours. `streamed`: the answers go out one by
 * one, and a verify never waits inside the batch for the escrow book to catch up (its frame says `alone`); otherwise
 * every call is answered whole, as its route would (the batch answered at once when all are done).
 * @example await runBatch(ctx, auth, parseBatch(body), { logger, translate }, (frame) => write(frame), true)
 */
export async function runBatch(
  ctx: FacilitatorContext,
  auth: CallerAuth,
  calls: BatchCalls,
  errors: ErrorBodiesParameters,
  onFrame: (frame: BatchFrame) => void,
  streamed: boolean,
): Promise<void> {
  await Promise.all(
    calls.map(async ({ route, token, body: request }, index) => {
      try {
        const body = await PAYMENT_OPERATIONS[route](ctx, auth, request, token, { inBatch: streamed });
        onFrame({ index, status: 200, body });
      } catch (error) {
        if (error instanceof BookCatchUpDeferredError) return onFrame({ index, alone: true });
        const { status, headers, body: failure } = errorAnswer(error, errors, `/batch ${route}`);
        const retryAfter = headers["Retry-After"];
        onFrame({ index, status, body: failure, ...(retryAfter ? { retryAfter } : {}) });
      }
    }),
  );
}
