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

async function answer(provider: RequestProvider, call: { id?: unknown; method?: string; params?: unknown[] }) {
  try {
    const result = await provider.request({ method: String(call.method), params: call.params ?? [] });
    return { jsonrpc: "2.0", id: call.id ?? null, result: result ?? null };
  } catch (error) {
    const e = error as { code?: number; message?: string; data?: unknown };
    return {
      jsonrpc: "2.0",
      id: call.id ?? null,
      error: { code: e.code ?? -32603, message: e.message ?? "error", data: e.data },
    };
  }
}

/**
 * Serves `provider` as JSON-RPC over HTTP on 127.0.0.1. `stop()` closes the port and drops open connections, so
 * clients see the chain as unreachable (connection refused); `resume()` serves the same chain state again.
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
          const out = Array.isArray(body)
            ? await Promise.all(body.map((c) => answer(provider, c)))
            : await answer(provider, body as never);
          const text = JSON.stringify(out, (_k, v) => (typeof v === "bigint" ? `0x${v.toString(16)}` : v));
          res.writeHead(200, { "content-type": "application/json" }).end(text);
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
