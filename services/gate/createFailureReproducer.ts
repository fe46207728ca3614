import type { HandlerLoad } from "./createHandlerLoad.ts";
import type { HandlerFailure } from "./gateRuntime.ts";
import type { Handler } from "./handler.ts";
import type { AloneRunner } from "./resolveGateConfig.ts";
import type { HandlerLimits } from "./runHandler.ts";
import { callHandler } from "./runHandler.ts";
import type { SchemaCheck } from "./schemaCheck.ts";
import { checkResponse } from "./validateResponse.ts";

/** The least time a reproduction waits for a quiet moment (a wedged sandbox takes about 2 s to be restarted). */
const QUIET_WAIT_MIN_MS = 5_000;

/** What reproducing a failure found: the creator's own sample failing (a strike), passing, or no quiet moment. */
export type Reproduction = HandlerFailure | "passed" | "no_quiet_moment";

/**
 * What the reproducer needs: the handler, its limits, the sample request the creator declared, readiness, and where
 * the handler's code runs alone (see `GateConfig.alone`), when it has such a place.
 */
export type FailureReproducerParameters = {
  handler: Handler;
  alone?: AloneRunner | undefined;
  load: HandlerLoad;
  limits: HandlerLimits;
  checkResponse: SchemaCheck;
  sampleRequest: Record<string, unknown>;
  ready: () => boolean | Promise<boolean>;
};

/**
 * Creates the check that decides whether a failed paid call is the creator's fault. It runs the creator's declared
 * sample request (an input no buyer chooses) through the same wall-time limit and response checks where nothing but
 * the creator's code runs: with `alone`, in a fresh isolate in a process of its own (so no neighbour's stall, crash
 * or memory use can fail it); without, on a handler with no other run under way that answers its health check, no
 * buyer's run starting until it is done. Only a failing sample is a strike; a sample that passes, or no turn or quiet
 * moment in time, strikes nothing. Failures arriving while a reproduction is under way share it.
 * @example const reproduce = createFailureReproducer({ handler, load, limits, checkResponse, sampleRequest, ready })
 */
export function createFailureReproducer(p: FailureReproducerParameters): () => Promise<Reproduction> {
  const rawBody = Buffer.from(JSON.stringify(p.sampleRequest));
  const ready = async () => (await p.ready()) === true;
  let underway: Promise<Reproduction> | undefined;
  const sample = async (handler: Handler): Promise<Reproduction> => {
    const called = await callHandler(handler, { body: p.sampleRequest, rawBody }, p.limits);
    if (!called.ok) return called.failure;
    const checked = await checkResponse(called.result, p.checkResponse, p.limits.maxResponseBytes);
    return checked.ok ? "passed" : { strikeReason: checked.strikeReason, message: checked.message };
  };
  async function reproduceOnce(): Promise<Reproduction> {
    const deadline = Date.now() + Math.max(p.limits.timeoutMs, QUIET_WAIT_MIN_MS);
    const ran = p.alone
      ? await p.alone(sample, deadline)
      : await p.load.alone(() => sample(p.handler), ready, deadline);
    return ran ?? "no_quiet_moment";
  }
  return () => {
    underway ??= reproduceOnce().finally(() => {
      underway = undefined;
    });
    return underway;
  };
}
