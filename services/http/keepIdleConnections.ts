import type { Server } from "node:http";

/**
 * How long a server keeps an idle kept-alive connection open. Longer than any client keeps one: a client that sends a
 * request on an idle connection at the moment the server closes it gets ECONNRESET for a request that never ran, and
 * Node's default (5 s) is only a second above fetch's (undici: 4 s, on timers that fire late on a busy event loop),
 * which lost requests of the local chain's RPC under load.
 */
export const IDLE_CONNECTION_MS = 65_000;

/**
 * Makes `server` outlast its clients on idle kept-alive connections (IDLE_CONNECTION_MS), so that the client, not the
 * server, closes one; its headers timeout stays above it, as Node requires.
 * @example keepIdleConnections(createServer(handler))
 */
export function keepIdleConnections<S extends Server>(server: S): S {
  server.keepAliveTimeout = IDLE_CONNECTION_MS;
  server.headersTimeout = IDLE_CONNECTION_MS + 1_000;
  return server;
}
