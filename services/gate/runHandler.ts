import { type GateMiddleware, stepValue } from "./gateRuntime.ts";
import type { Handler } from "./handler.ts";

/**
 * Runs the creator's handler under a wall-time limit (the signal aborts at the limit and the gate stops waiting).
 * A throw or a timeout is recorded as the handler's failure for `releaseOnFailure`.
 * @example app.use(runHandler(handler, { timeoutMs: 10_000, maxResponseBytes: 65_536 }))
 */
export function runHandler(handler: Handler, limits: { timeoutMs: number; maxResponseBytes: number }): GateMiddleware {
  return async (koa, next) => {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<{ kind: "timeout" }>((resolve) => {
      timer = setTimeout(() => {
        controller.abort(new Error("wall-time limit"));
        resolve({ kind: "timeout" });
      }, limits.timeoutMs);
    });
    const ran = handler({
      body: stepValue(koa.state, "body"),
      rawBody: stepValue(koa.state, "rawBody"),
      signal: controller.signal,
      maxResponseBytes: limits.maxResponseBytes,
    }).then(
      (result) => ({ kind: "ok" as const, result }),
      (error: unknown) => ({ kind: "threw" as const, message: (error as Error)?.message ?? String(error) }),
    );
    const outcome = await Promise.race([ran, timedOut]).finally(() => clearTimeout(timer));
    if (outcome.kind === "timeout") {
      koa.state.failure = { strikeReason: "handler_timeout", message: `no answer within ${limits.timeoutMs} ms` };
      return;
    }
    if (outcome.kind === "threw") {
      koa.state.failure = { strikeReason: "handler_error", message: outcome.message.slice(0, 200) };
      return;
    }
    koa.state.handlerResult = outcome.result;
    await next();
  };
}
