import type { Server } from "node:http";
import type Koa from "koa";

/**
 * Starts listening; resolves with the server once it accepts connections.
 * @example const server = await listen(app, 0, "127.0.0.1")
 */
export function listen(app: Koa, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once("listening", () => resolve(server));
    server.once("error", reject);
  });
}
