import { isChainUnavailable } from "../../protocol/chain.ts";

/**
 * What an RPC answer to a send means for the relayer. `rate_limited`: back off and resend the same transaction;
 * `nonce_too_low`: the nonce was used, read it again; `underpriced`: raise the fees; `insufficient_funds`: the signer
 * cannot pay the gas, pause until it is funded; `reverted`: the node executed it and it reverts; `transport`: no
 * answer (socket, timeout, HTTP error); `rejected`: any other refusal.
 */
export type RpcErrorKind =
  | "rate_limited"
  | "nonce_too_low"
  | "underpriced"
  | "insufficient_funds"
  | "reverted"
  | "transport"
  | "rejected";

type ErrorLike = {
  status?: number;
  code?: number | string;
  details?: string;
  shortMessage?: string;
  message?: string;
  cause?: unknown;
};

const PATTERNS: readonly [RpcErrorKind, RegExp][] = [
  ["rate_limited", /rate.?limit|too many requests|request limit|capacity exceeded/i],
  ["nonce_too_low", /nonce too low|nonce has already been used|nonce.*expired/i],
  [
    "underpriced",
    /underpriced|fee too low|(gas price|feepergas).*too low|too low for the next block|(less|lower) than (the )?block base fee/i,
  ],
  ["insufficient_funds", /insufficient funds|enough funds|balance.*too low for/i],
  ["reverted", /revert/i],
];

/**
 * Classifies an error from an RPC call (viem's error and its causes): an HTTP 429 or JSON-RPC `-32005` is a rate
 * limit before anything else (a 429 is also an HTTP failure), then the node's message decides, then a failure to get
 * any answer is `transport`.
 * @example if (classifyRpcError(error) === "rate_limited") await sleep(backoff)
 */
export function classifyRpcError(error: unknown): RpcErrorKind {
  const texts: string[] = [];
  for (let e = error as ErrorLike | undefined, depth = 0; e && depth < 8; e = e.cause as ErrorLike, depth++) {
    if (e.status === 429 || e.code === -32005) return "rate_limited";
    if (e.code === 3) return "reverted";
    texts.push(e.details ?? "", e.shortMessage ?? "", e.status === undefined ? (e.message ?? "") : "");
  }
  const text = texts.join("\n");
  for (const [kind, pattern] of PATTERNS) if (pattern.test(text)) return kind;
  return isChainUnavailable(error) ? "transport" : "rejected";
}

/** Hex of a signature's length (65 bytes) or more: a raw transaction, calldata or a signature, never logged. */
const LONG_HEX = /0x[0-9a-fA-F]{130,}/g;

/**
 * The node's own words about an RPC error, one line, with any raw transaction, calldata or signature cut out: what
 * logs and stored failures may hold (viem's messages carry the request body, which holds the signed transaction).
 * @example logger.warn({ kind, reason: rpcErrorReason(error) }, "send refused")
 */
export function rpcErrorReason(error: unknown): string {
  let e = error as ErrorLike | undefined;
  let reason = "";
  for (let depth = 0; e && depth < 8; e = e.cause as ErrorLike, depth++) {
    reason = e.details || e.shortMessage || reason || (e.message ?? "");
  }
  const line = (reason || String(error)).split("\n")[0] ?? "";
  return line.replace(LONG_HEX, "0x…").slice(0, 300);
}
