import { createServer } from "node:http";
import type { AddressInfo, Server, Socket } from "node:net";

/** The part of an EIP-1193 provider the server needs. */
export type RequestProvider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };

/** A JSON-RPC-over-HTTP endpoint for an in-process chain that can be stopped and resumed on the same port. */
export type RpcServer = {
  url: string;
  port: number;
  stop(): Promise<void>;
  resume(): Promise<void>;
  close(): Promise<void>;
};

/**
 * What a provider throws to fail the whole HTTP exchange instead of one call in it, as an overloaded or flaky hosted
 * RPC does: an HTTP status with its headers and body (a 429 with `Retry-After`), or, with `drop`, no answer at all
 * (the connection is destroyed; the request may or may not have reached the chain).
 */
export class HttpFault extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly drop: boolean;
  constructor(p: { status?: number; headers?: Record<string, string>; body?: string; drop?: boolean }) {
    super(p.drop ? "connection dropped" : `HTTP ${p.status ?? 500}`);
    this.name = "HttpFault";
    this.status = p.status ?? 500;
    this.headers = p.headers ?? {};
    this.body = p.body ?? "";
    this.drop = p.drop ?? false;
  }
}

async function answer(provider: RequestProvider, call: { id?: unknown; method?: string; params?: unknown[] }) {
  try {
    const result = await provider.request({ method: String(call.method), params: call.params ?? [] });
    return { jsonrpc: "2.0", id: call.id ?? null, result: result ?? null };
  } catch (error) {
    if (error instanceof HttpFault) throw error;
    const e = error as { code?: number; message?: string; data?: unknown };
    return {
      jsonrpc: "2.0",
      id: call.id ?? null,
      error: { code: e.code ?? -32603, message: e.message ?? "error", data: e.data },
    };
  }
}

/**
 * Serves `provider` as JSON-RPC over HTTP on 127.0.0.1 (single calls and arrays of calls). `stop()` closes the port
 * and drops open connections, so clients see the chain as unreachable (connection refused); `resume()` serves the
 * same chain state again. A call whose provider throws an `HttpFault` fails its whole HTTP exchange that way.
 * @example const rpc = await serveRpc(connection.provider); ...; await rpc.stop(); await rpc.resume()
 */
export async function serveRpc(provider: RequestProvider, port = 0): Promise<RpcServer> {
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  const start = (onPort: number) =>
    new Promise<Server>((resolve, reject) => {
      const s = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", async () => {
          let body: unknown;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          } catch {
            res.writeHead(400).end();
            return;
          }
          try {
            const out = Array.isArray(body)
              ? await Promise.all(body.map((c) => answer(provider, c)))
              : await answer(provider, body as never);
            const text = JSON.stringify(out, (_k, v) => (typeof v === "bigint" ? `0x${v.toString(16)}` : v));
            res.writeHead(200, { "content-type": "application/json" }).end(text);
          } catch (error) {
            if (!(error instanceof HttpFault)) throw error;
            if (error.drop) req.socket.destroy();
            else res.writeHead(error.status, error.headers).end(error.body);
          }
        });
      });
      s.keepAliveTimeout = 1_000;
      s.on("connection", (socket) => {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
      });
      s.once("error", reject);
      s.listen(onPort, "127.0.0.1", () => resolve(s));
    });
  server = await start(port);
  const bound = (server.address() as AddressInfo).port;
  const stop = async () => {
    if (!server) return;
    const closing = new Promise<void>((resolve) => server!.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closing;
    server = null;
  };
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    stop,
    async resume() {
      server ??= await start(bound);
    },
    close: stop,
  };
}
