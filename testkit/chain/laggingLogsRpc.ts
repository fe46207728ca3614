import type { RpcInterceptor, RpcProxy } from "./rpcProxy.ts";
import { serveRpcProxy } from "./rpcProxy.ts";
import type { RequestProvider } from "./rpcServer.ts";

/** How far a load-balanced provider's nodes lag the newest one, as its answers show it. */
export type LogsLag = {
  /**
   * Blocks `eth_getLogs` lags the head: it answers as a node that has not seen the newest `logs` blocks yet, with the
   * logs of the older blocks of the range and none of the newer, and no error (a filter by block hash passes).
   */
  logs: number;
  /** Every `lowHeadEvery`-th `eth_blockNumber` is answered one block low (a node behind another); 0: never. */
  lowHeadEvery: number;
};

/** A provider whose logs lag its head; `lag` may be changed while it runs. */
export type LaggingLogsRpc = RpcProxy & { lag: LogsLag };

const hex = (n: bigint) => `0x${n.toString(16)}`;

/**
 * Serves `upstream` (the in-process chain) through serveRpcProxy as a load-balanced provider whose nodes lag one
 * another: `eth_getLogs` one block behind the head by default, so a range that ends at the head it answered comes back
 * without the head block's logs, and optionally every n-th `eth_blockNumber` one block low. Everything else passes.
 * @example const rpc = await serveLaggingLogsRpc(chain.connection.provider, { logs: 1, lowHeadEvery: 2 })
 */
export async function serveLaggingLogsRpc(
  upstream: RequestProvider,
  lag: Partial<LogsLag> = {},
): Promise<LaggingLogsRpc> {
  const state: LogsLag = { logs: lag.logs ?? 1, lowHeadEvery: lag.lowHeadEvery ?? 0 };
  const head = async () => BigInt((await upstream.request({ method: "eth_blockNumber", params: [] })) as string);
  const blockOf = async (tag: unknown, latest: bigint) => {
    if (tag === "earliest") return 0n;
    if (typeof tag === "string" && tag.startsWith("0x")) return BigInt(tag);
    return latest;
  };
  let heads = 0;
  const eth_blockNumber: RpcInterceptor = async () => {
    const n = await head();
    heads++;
    return hex(state.lowHeadEvery > 0 && heads % state.lowHeadEvery === 0 && n > 0n ? n - 1n : n);
  };
  const eth_getLogs: RpcInterceptor = async (call, next) => {
    const [filter] = call.params as [{ fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown }];
    if (state.logs === 0 || !filter || filter.blockHash !== undefined) return next();
    const latest = await head();
    const seen = latest - BigInt(state.logs);
    if ((await blockOf(filter.fromBlock, latest)) > seen) return [];
    if ((await blockOf(filter.toBlock, latest)) <= seen) return next();
    return next({ method: call.method, params: [{ ...filter, toBlock: hex(seen) }, ...call.params.slice(1)] });
  };
  const proxy = await serveRpcProxy(upstream, { eth_blockNumber, eth_getLogs });
  return { ...proxy, lag: state };
}
