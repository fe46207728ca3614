import type { RequestProvider, RpcServer } from "./rpcServer.ts";
import { HttpFault, serveRpc } from "./rpcServer.ts";

/** One JSON-RPC call as the proxy sees it. */
export type RpcCall = { method: string; params: unknown[] };

/**
 * What the proxy does with a call of the method it is set for: pass it on to the chain (`next`, with the call as it
 * came or changed), answer it itself (return a result, or throw `{ code, message, data? }` for a JSON-RPC error), or
 * fail the whole HTTP exchange (throw an `HttpFault`: a 429, a dropped connection).
 */
export type RpcInterceptor = (call: RpcCall, next: (call?: RpcCall) => Promise<unknown>) => Promise<unknown>;

/** A fault the proxy can answer a call with: a JSON-RPC error inside an HTTP 200, or a failed HTTP exchange. */
export type RpcFailure = HttpFault | { code: number; message: string; data?: unknown };

/** A JSON-RPC rate limit as hosted providers answer it: `-32005` inside an HTTP 200. */
export const jsonRpcRateLimit = (): RpcFailure => ({ code: -32005, message: "request rate limit exceeded" });

/** An HTTP 429 with `Retry-After`, as an overloaded provider answers. */
export const httpRateLimit = (): RpcFailure =>
  new HttpFault({ status: 429, headers: { "retry-after": "1" }, body: "Too Many Requests" });

/** An RPC endpoint in front of a chain whose answers can be changed per method while it runs. */
export type RpcProxy = RpcServer & {
  /** Answers the next `times` calls of `method` with `failure` (before any interceptor), then passes them on again. */
  failNext(method: string, failure: RpcFailure, times?: number): void;
  /** Sets the interceptor of `method`, or with `undefined` passes its calls through again. */
  intercept(method: string, interceptor: RpcInterceptor | undefined): void;
  /** How many calls of `method` reached the proxy (each call of a JSON-RPC array counts). */
  calls(method: string): number;
};

/**
 * A real JSON-RPC-over-HTTP server on loopback in front of `upstream` (the in-process Hardhat/EDR chain's provider),
 * passing every call through except those of a method with an interceptor: the one place tests and the drill make an
 * RPC misbehave as hosted providers do (logs behind the head, refused ranges, rate limits, dropped sends).
 * `stop()` / `resume()` make it unreachable and reachable again.
 * @example const rpc = await serveRpcProxy(chain.connection.provider, { eth_chainId: async () => "0x1" })
 */
export async function serveRpcProxy(
  upstream: RequestProvider,
  interceptors: Record<string, RpcInterceptor> = {},
): Promise<RpcProxy> {
  const set = new Map(Object.entries(interceptors));
  const counts = new Map<string, number>();
  const failures = new Map<string, RpcFailure[]>();
  const provider: RequestProvider = {
    request({ method, params = [] }) {
      counts.set(method, (counts.get(method) ?? 0) + 1);
      const failure = failures.get(method)?.shift();
      if (failure) return Promise.reject(failure);
      const next = (call: RpcCall = { method, params }) => upstream.request(call);
      const interceptor = set.get(method);
      return interceptor ? interceptor({ method, params }, next) : next();
    },
  };
  const server = await serveRpc(provider);
  return {
    ...server,
    failNext(method, failure, times = 1) {
      failures.set(method, [...(failures.get(method) ?? []), ...Array.from({ length: times }, () => failure)]);
    },
    intercept(method, interceptor) {
      if (interceptor) set.set(method, interceptor);
      else set.delete(method);
    },
    calls: (method) => counts.get(method) ?? 0,
  };
}
