import type { HttpTransportConfig, Transport } from "viem";
import { fallback } from "viem";
import { endpointLabel, onRequestError, redactedHttp, rpcUrlsOf } from "../http/rpcUrls.ts";
import type { RpcErrorKind } from "./relayer/classifyRpcError.ts";
import { classifyRpcError } from "./relayer/classifyRpcError.ts";

/** Called once per failed JSON-RPC request, with what the failure was and which endpoint gave it. */
export type RpcErrorObserver = (error: { kind: RpcErrorKind; endpoint: string; method: string }) => void;

/**
 * viem's `http` transport whose every failed request is reported to `observe`, classified (classifyRpcError) and
 * labelled with the endpoint's host; the error is rethrown with the URL in its texts replaced by that label
 * (redactedHttp: the URL's path, query or credentials hold a hosted provider's API key).
 * @example http: observedTransport(rpcUrl, { retryCount: 0 }, (e) => metrics.rpcErrors.inc(e))
 */
export function observedTransport(
  rpcUrl: string,
  config: HttpTransportConfig,
  observe: RpcErrorObserver | undefined,
): Transport {
  const endpoint = endpointLabel(rpcUrl);
  return onRequestError(redactedHttp(rpcUrl, config), (error, method) => {
    observe?.({ kind: classifyRpcError(error), endpoint, method });
    return error;
  });
}

/**
 * How long the facilitator waits for one JSON-RPC answer by default (`RPC_TIMEOUT_MS`): past it the request counts as
 * the endpoint's failure to answer (`kind="transport"`) and, with several endpoints, goes to the next one. The
 * relayer's requests (sends, receipts, gas estimates) wait twice as long.
 */
export const DEFAULT_RPC_TIMEOUT_MS = 5_000;

/** How often several endpoints are ranked (a block-number request to each; latency and failures decide). */
const RANK_INTERVAL_MS = 10_000;

/**
 * The transport of an `RPC_URL` setting: one endpoint's observed transport, or for several viem's `fallback` over
 * theirs, ranked by latency and stability every 10 s: a request goes to the best-ranked endpoint and, when that one
 * fails to answer or answers a rate limit, to the next (a revert or a refused transaction is an answer, not a
 * failure). Every failed request is reported to `observe` with its own endpoint.
 * @example createPublicClient({ chain, transport: rpcTransport(config.RPC_URL, { retryCount: 0 }, observe) })
 */
export function rpcTransport(
  setting: string,
  config: HttpTransportConfig,
  observe: RpcErrorObserver | undefined,
): Transport {
  const urls = rpcUrlsOf(setting);
  const transports = urls.map((url) => observedTransport(url, config, observe));
  if (transports.length === 1) return transports[0] as Transport;
  return fallback(transports, { rank: { interval: RANK_INTERVAL_MS }, retryCount: 0 });
}
