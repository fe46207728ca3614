import type { ValidateFunction } from "ajv";
import type { HandlerLoad } from "./createHandlerLoad.ts";
import type { HandlerFailure } from "./gateRuntime.ts";
import type { Handler } from "./handler.ts";
import type { HandlerLimits } from "./runHandler.ts";
import { callHandler } from "./runHandler.ts";
import { checkResponse } from "./validateResponse.ts";

/** The least time a reproduction waits for a quiet moment (a wedged sandbox takes about 2 s to be restarted). */
const QUIET_WAIT_MIN_MS = 5_000;

/** What reproducing a failure found: the creator's own sample failing (a strike), passing, or no quiet moment. */
export type Reproduction = HandlerFailure | "passed" | "no_quiet_moment";

/** What the reproducer needs: the handler, its limits, the sample request the creator declared, readiness. */
export type FailureReproducerParameters = {
  handler: Handler;
  load: HandlerLoad;
  limits: HandlerLimits;
  validateResponse: ValidateFunction;
  sampleRequest: Record<string, unknown>;
  ready: () => boolean | Promise<boolean>;
};

/**
 * Creates the check that decides whether a failed paid call is the creator's fault. It runs the creator's declared
 * sample request (an input no buyer chooses) through the same wall-time limit and response checks, on a handler with
 * no other run under way that answers its health check, and lets no buyer's run start until it is done. Only a
 * failing sample is a strike; a sample that passes, or no quiet moment within the wall-time limit, strikes nothing.
 * Failures arriving while a reproduction is under way share it.
 * @example const reproduce = createFailureReproducer({ handler, load, limits, validateResponse, sampleRequest, ready })
 */
export function createFailureReproducer(p: FailureReproducerParameters): () => Promise<Reproduction> {
  const rawBody = Buffer.from(JSON.stringify(p.sampleRequest));
  const ready = async () => (await p.ready()) === true;
  let underway: Promise<Reproduction> | undefined;
  async function reproduceOnce(): Promise<Reproduction> {
    const ran = await p.load.alone(
      async (): Promise<Reproduction> => {
        const called = await callHandler(p.handler, { body: p.sampleRequest, rawBody }, p.limits);
        if (!called.ok) return called.failure;
        const checked = checkResponse(called.result, p.validateResponse, p.limits.maxResponseBytes);
        return checked.ok ? "passed" : { strikeReason: checked.strikeReason, message: checked.message };
      },
      ready,
      Date.now() + Math.max(p.limits.timeoutMs, QUIET_WAIT_MIN_MS),
    );
    return ran ?? "no_quiet_moment";
  }
  return () => {
    underway ??= reproduceOnce().finally(() => {
      underway = undefined;
    });
    return underway;
  };
}
