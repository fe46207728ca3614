import type { FetchBoundedInit } from "../../../http/fetchBounded.ts";
import { fetchBounded } from "../../../http/fetchBounded.ts";
import { BuyerError } from "./buyerError.ts";
import { redactUrl } from "./redactUrl.ts";

/** An HTTP answer read as JSON (undefined when the body is not JSON). */
export type FetchJsonReturnType = { response: { status: number; headers: Headers }; json: unknown };

/** Where a request may go and how long and large its answer may be. */
export type FetchJsonOptions = {
  /**
   * Whether the address may be loopback, private or link-local. True only for an address the user configured
   * (marketplace, facilitator) or a local development stack; an address a creator names (a card URI, a card's call
   * URL) must be public: checked in the socket's own DNS lookup.
   */
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Largest answer body read (default 16 MiB); a larger one is `<what>_unavailable`. */
  maxBytes?: number;
};

/** Largest answer body the buyer reads from anyone by default. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * One bounded request (`fetchBounded`: no redirect followed, the body read to at most `maxBytes`, the whole exchange
 * within `timeoutMs`), its body parsed as JSON. An address refused as private throws `BuyerError` `private_address`;
 * any other failure to get an answer throws `<what>_unavailable`. A message names the URL only as `redactUrl` shows it:
 * never a password or a query string.
 * @example const { response, json } = await fetchJson(`${marketplaceUrl}/resources`, {}, "marketplace", { allowPrivate: true })
 */
export async function fetchJson(
  url: string,
  init: FetchBoundedInit,
  what: string,
  options: FetchJsonOptions,
): Promise<FetchJsonReturnType> {
  const answer = await fetchBounded(url, init, {
    timeoutMs: options.timeoutMs ?? 15_000,
    maxBytes: options.maxBytes ?? MAX_ANSWER_BYTES,
    allowPrivate: options.allowPrivate,
  });
  if ("error" in answer) {
    const shown = redactUrl(url);
    if (answer.privateAddress)
      throw new BuyerError(
        "private_address",
        `${what} at ${shown} is not reached: ${answer.error}. The buyer reaches only public addresses a creator names; a local development stack needs BUYER_ALLOW_PRIVATE_NETWORK=on (SDK: buyerChain's allowPrivateAddresses)`,
      );
    throw new BuyerError(`${what}_unavailable`, `${what} at ${shown} cannot be reached (${answer.error})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    json = undefined;
  }
  return { response: { status: answer.status, headers: answer.headers }, json };
}

/**
 * The `{ error: { code, message } }` of an answer, or its status when the body has none.
 * @example const { code } = errorOf(json, 404)
 */
export function errorOf(json: unknown, status: number): { code: string; message: string } {
  const error = (json as { error?: { code?: unknown; message?: unknown } | string } | undefined)?.error;
  if (typeof error === "string") return { code: error, message: error };
  return {
    code: typeof error?.code === "string" ? error.code : `http_${status}`,
    message: typeof error?.message === "string" ? error.message : `answered ${status}`,
  };
}
