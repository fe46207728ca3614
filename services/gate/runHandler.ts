import type { HandlerLoad } from "./createHandlerLoad.ts";
import { type GateMiddleware, type HandlerFailure, stepValue } from "./gateRuntime.ts";
import type { Handler, HandlerResult } from "./handler.ts";

/** The wall-time limit and response cap a handler runs under. */
export type HandlerLimits = { timeoutMs: number; maxResponseBytes: number };

/**
 * Calls a handler on one request body under the wall-time limit (the signal aborts at the limit and the caller
 * stops waiting); a throw or a timeout comes back as the handler's failure.
 * @example const outcome = await callHandler(handler, { body, rawBody }, { timeoutMs: 10_000, maxResponseBytes: 65_536 })
 */
export async function callHandler(
  handler: Handler,
  request: { body: Record<string, unknown>; rawBody: Buffer },
  limits: HandlerLimits,
): Promise<{ ok: true; result: HandlerResult } | { ok: false; failure: HandlerFailure }> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<{ kind: "timeout" }>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error("wall-time limit"));
      resolve({ kind: "timeout" });
    }, limits.timeoutMs);
  });
  const ran = handler({ ...request, signal: controller.signal, maxResponseBytes: limits.maxResponseBytes }).then(
    (result) => ({ kind: "ok" as const, result }),
    (error: unknown) => ({ kind: "threw" as const, message: (error as Error)?.message ?? String(error) }),
  );
  const outcome = await Promise.race([ran, timedOut]).finally(() => clearTimeout(timer));
  if (outcome.kind === "timeout") {
    return {
      ok: false,
      failure: { strikeReason: "handler_timeout", message: `no answer within ${limits.timeoutMs} ms` },
    };
  }
  if (outcome.kind === "threw") {
    return { ok: false, failure: { strikeReason: "handler_error", message: outcome.message.slice(0, 200) } };
  }
  return { ok: true, result: outcome.result };
}

/**
 * Runs the creator's handler on the buyer's request under the wall-time limit, counted in the gate's handler load
 * until the handler has really settled (not only until the gate stopped waiting). A throw or a timeout is recorded
 * as the handler's failure for `releaseOnFailure`.
 * @example app.use(runHandler(handler, load, { timeoutMs: 10_000, maxResponseBytes: 65_536 }))
 */
export function runHandler(handler: Handler, load: HandlerLoad, limits: HandlerLimits): GateMiddleware {
  const counted: Handler = (call) => load.run(() => handler(call));
  return async (koa, next) => {
    await load.open();
    const request = { body: stepValue(koa.state, "body"), rawBody: stepValue(koa.state, "rawBody") };
    const outcome = await callHandler(counted, request, limits);
    if (!outcome.ok) {
      koa.state.failure = outcome.failure;
      return;
    }
    koa.state.handlerResult = outcome.result;
    await next();
  };
}
