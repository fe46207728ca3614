import { FREE_PATHS } from "./freePaths.ts";
import type { GateMiddleware } from "./gateRuntime.ts";
import { sendError } from "./sendError.ts";

/**
 * Lets only `POST /call` through to the paid steps: another method on a known path is 405, any other path 404.
 * @example app.use(callRoute())
 */
export function callRoute(): GateMiddleware {
  const free = new Set<string>(FREE_PATHS);
  return async (koa, next) => {
    if (koa.path === "/call" && koa.method === "POST") return next();
    if (koa.path === "/call") return sendError(koa, 405, "method_not_allowed", "use POST /call", { Allow: "POST" });
    if (free.has(koa.path))
      return sendError(koa, 405, "method_not_allowed", `use GET ${koa.path}`, { Allow: "GET, HEAD" });
    sendError(koa, 404, "not_found", "no such route; the paid entry point is POST /call");
  };
}
