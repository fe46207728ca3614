import type { Context } from "koa";
import type { GateMiddleware, GateRuntime } from "./gateRuntime.ts";
import { sendError } from "./sendError.ts";

/** The un-gated paths, matched exactly (method GET, or HEAD). */
export const FREE_PATHS = ["/.well-known/agent-card.json", "/health", "/ready"] as const;

/**
 * Serves the free paths: the agent card, health and readiness (handler ready and facilitator ready).
 * Everything else passes on to the paid route.
 * @example app.use(freePaths(runtime))
 */
export function freePaths(runtime: GateRuntime): GateMiddleware {
  let readyCache = { at: 0, ready: false };
  const isReady = async () => {
    if (Date.now() - readyCache.at < 1_000) return readyCache.ready;
    const [handler, facilitator] = await Promise.all([
      Promise.resolve(runtime.config.ready?.() ?? true).catch(() => false),
      runtime.facilitator.ready(),
    ]);
    readyCache = { at: Date.now(), ready: handler && facilitator };
    return readyCache.ready;
  };
  const routes = new Map<string, (koa: Context) => Promise<void> | void>([
    [
      "/.well-known/agent-card.json",
      (koa) => {
        const card = runtime.config.card() as { cache?: { ttlSeconds?: unknown } };
        const ttl = card.cache?.ttlSeconds;
        koa.set("Cache-Control", typeof ttl === "number" ? `public, max-age=${ttl}` : "no-cache");
        koa.body = card;
      },
    ],
    [
      "/health",
      (koa) => {
        koa.body = { ok: true, service: "gate" };
      },
    ],
    [
      "/ready",
      async (koa) => {
        if (await isReady()) koa.body = { ready: true };
        else sendError(koa, 503, "not_ready", "the handler or the facilitator is not ready");
      },
    ],
  ]);
  return async (koa, next) => {
    const route = routes.get(koa.path);
    if (!route || (koa.method !== "GET" && koa.method !== "HEAD")) return next();
    await route(koa);
  };
}
