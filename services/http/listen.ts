import type { RequestListener, Server } from "node:http";
import type Koa from "koa";
import { createJsonServer } from "./createJsonServer.ts";

/**
 * Serves a Koa app or a request listener on a server whose every refusal has an error body and whose idle connections
 * outlast their clients' (createJsonServer); resolves with the server once it accepts connections.
 * @example const server = await listen(app, 0, "127.0.0.1")
 */
export function listen(app: Koa | RequestListener, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createJsonServer(typeof app === "function" ? app : app.callback());
    server.listen(port, host);
    server.once("listening", () => resolve(server));
    server.once("error", reject);
  });
}
