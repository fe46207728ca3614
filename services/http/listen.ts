import type { RequestListener, Server } from "node:http";
import { createServer } from "node:http";
import type Koa from "koa";
import { answerClientErrors } from "./answerClientErrors.ts";
import { keepIdleConnections } from "./keepIdleConnections.ts";

/**
 * Serves a Koa app or a request listener, keeping idle connections longer than clients do (keepIdleConnections) and
 * answering requests Node cannot parse with an error body (answerClientErrors);
 * resolves with the server once it accepts connections.
 * @example const server = await listen(app, 0, "127.0.0.1")
 */
export function listen(app: Koa | RequestListener, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = answerClientErrors(
      keepIdleConnections(createServer(typeof app === "function" ? app : app.callback())),
    );
    server.listen(port, host);
    server.once("listening", () => resolve(server));
    server.once("error", reject);
  });
}
