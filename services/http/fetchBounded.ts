import { lookup as dnsLookup } from "node:dns";
import type { IncomingMessage, RequestOptions } from "node:http";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import { BaseError } from "../protocol/errors.ts";
import { isPrivateAddress } from "./privateAddress.ts";

/** Limits of one request: wall time, response body size, and whether private addresses may be reached. */
export type FetchBoundedLimits = { timeoutMs: number; maxBytes: number; allowPrivate: boolean };

/** A request: method, headers and an optional body. */
export type FetchBoundedInit = { method?: string; headers?: Record<string, string>; body?: string };

/** An answer (status, headers, body text), or why there is none; `privateAddress` when the target was refused. */
export type FetchBoundedResult =
  | { status: number; headers: Headers; text: string }
  | { error: string; privateAddress?: true };

/** A refused private address, raised from the socket's own lookup so a DNS answer cannot change after the check. */
class PrivateAddressError extends BaseError {
  override name = "PrivateAddressError";
}

const publicOnly: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 4);
    const refused = addresses.find((a) => isPrivateAddress(a.address));
    if (refused || addresses.length === 0) {
      const what = refused
        ? `${hostname} resolves to the private address ${refused.address}`
        : `${hostname}: no address`;
      return callback(new PrivateAddressError(what), "", 4);
    }
    if ((options as { all?: boolean }).all)
      return (callback as (e: null, a: typeof addresses) => void)(null, addresses);
    const [first] = addresses;
    callback(null, first?.address ?? "", first?.family ?? 4);
  });
};

/**
 * Keep-alive agents whose every socket is connected through `publicOnly`: kept apart from the default agents, so a
 * socket opened to a private address by a request allowed to reach one is never reused by a request that is not.
 */
const publicAgents = {
  "http:": new HttpAgent({ keepAlive: true, lookup: publicOnly }),
  "https:": new HttpsAgent({ keepAlive: true, lookup: publicOnly }),
};

function headersOf(response: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}

/**
 * One bounded HTTP request to an address someone else named: no redirect is followed, the answer's body is read to
 * at most `maxBytes` (a larger one is an error, and the connection is dropped), the whole exchange is bounded by
 * `timeoutMs`, and unless `allowPrivate` the target must resolve only to public addresses (checked in the socket's
 * own DNS lookup, so a rebinding answer cannot slip between check and connect): loopback, private, link-local (cloud
 * metadata) and the like are refused, with `privateAddress` set. Every failure is data. The marketplace's probe and
 * the buyer's reads of cards and resources go through it.
 * @example await fetchBounded(`${base}/health`, {}, { timeoutMs: 5_000, maxBytes: 262_144, allowPrivate: false })
 */
export async function fetchBounded(
  url: string,
  init: FetchBoundedInit,
  limits: FetchBoundedLimits,
): Promise<FetchBoundedResult> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { error: "not a URL" };
  }
  if (target.protocol !== "http:" && target.protocol !== "https:")
    return { error: `${target.protocol} is not http or https` };
  const host = target.hostname.replace(/^\[|\]$/g, "");
  if (!limits.allowPrivate && isIP(host) !== 0 && isPrivateAddress(host))
    return { error: `${host} is a private address`, privateAddress: true };
  const options: RequestOptions = {
    method: init.method ?? "GET",
    headers: {
      ...init.headers,
      ...(init.body !== undefined ? { "content-length": Buffer.byteLength(init.body) } : {}),
    },
    ...(limits.allowPrivate ? {} : { agent: publicAgents[target.protocol as "http:" | "https:"] }),
  };
  const deadline = Date.now() + limits.timeoutMs;
  // A kept-alive socket the server closes just as a request goes out is reset before anything was answered (Node's
  // documented keep-alive race): a request that changes nothing (GET, HEAD) is sent once more on a new socket.
  const idempotent = options.method === "GET" || options.method === "HEAD";
  const first = await exchange(target, options, init.body, limits, deadline);
  const result =
    "staleSocket" in first && idempotent ? await exchange(target, options, init.body, limits, deadline) : first;
  return "staleSocket" in result ? { error: result.error } : result;
}

type Exchanged = FetchBoundedResult | { error: string; staleSocket: true };

function exchange(
  target: URL,
  options: RequestOptions,
  body: string | undefined,
  limits: FetchBoundedLimits,
  deadline: number,
): Promise<Exchanged> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (value: Exchanged) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const request = (target.protocol === "https:" ? httpsRequest : httpRequest)(
      target,
      options,
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > limits.maxBytes) {
            finish({ error: `the answer is over ${limits.maxBytes} bytes` });
            request.destroy();
            return;
          }
          chunks.push(chunk);
        });
        response.on("end", () =>
          finish({
            status: response.statusCode ?? 0,
            headers: headersOf(response),
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        response.on("error", (error) => finish({ error: error.message }));
      },
    );
    const timer = setTimeout(
      () => {
        finish({ error: `no answer within ${limits.timeoutMs} ms` });
        request.destroy();
      },
      Math.max(0, deadline - Date.now()),
    );
    request.on("error", (error: Error & { code?: string }) =>
      finish(
        error instanceof PrivateAddressError
          ? { error: error.message, privateAddress: true }
          : request.reusedSocket && error.code === "ECONNRESET"
            ? { error: error.code, staleSocket: true }
            : { error: error.code ?? error.message },
      ),
    );
    request.end(body);
  });
}
