import type { RpcProxy } from "./rpcProxy.ts";
import { serveRpcProxy } from "./rpcProxy.ts";
import type { RequestProvider } from "./rpcServer.ts";

/** A JSON-RPC endpoint that refuses wide `eth_getLogs` ranges, as public RPCs do, and counts what it refused. */
export type RangeLimitedRpc = RpcProxy & { refused(): number };

/**
 * Serves `upstream` as JSON-RPC over HTTP on loopback (serveRpcProxy), except that an `eth_getLogs` whose block range
 * spans more than `maxBlocks` blocks (`earliest` is block 0, `latest` or a missing bound the current block) is answered
 * with the JSON-RPC error public providers send (-32005, "query exceeds max block range"). Everything else is passed
 * through unchanged; `stop()` / `resume()` make it unreachable and reachable again.
 * @example const rpc = await serveRangeLimitedRpc(chain.connection.provider, 5n)
 */
export async function serveRangeLimitedRpc(upstream: RequestProvider, maxBlocks: bigint): Promise<RangeLimitedRpc> {
  let refused = 0;
  const blockOf = async (tag: unknown): Promise<bigint> => {
    if (tag === "earliest") return 0n;
    if (typeof tag === "string" && tag.startsWith("0x")) return BigInt(tag);
    return BigInt((await upstream.request({ method: "eth_blockNumber", params: [] })) as string);
  };
  const proxy = await serveRpcProxy(upstream, {
    async eth_getLogs(call, next) {
      const [filter] = call.params as [{ fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown }];
      if (filter && filter.blockHash === undefined) {
        const span = (await blockOf(filter.toBlock)) - (await blockOf(filter.fromBlock)) + 1n;
        if (span > maxBlocks) {
          refused++;
          throw { code: -32005, message: `query exceeds max block range ${maxBlocks} (asked for ${span})` };
        }
      }
      return next();
    },
  });
  return { ...proxy, refused: () => refused };
}
