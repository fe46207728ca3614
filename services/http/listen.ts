import type { Server } from "node:http";
import type Koa from "koa";
import { keepIdleConnections } from "./keepIdleConnections.ts";

/**
 * Starts listening, keeping idle connections longer than clients do (keepIdleConnections); resolves with the server
 * once it accepts connections.
 * @example const server = await listen(app, 0, "127.0.0.1")
 */
export function listen(app: Koa, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = keepIdleConnections(app.listen(port, host));
    server.once("listening", () => resolve(server));
    server.once("error", reject);
  });
}
