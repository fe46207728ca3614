import { lookup as dnsLookup } from "node:dns";
import type { IncomingMessage, RequestOptions } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import { isPrivateAddress } from "../../http/privateAddress.ts";
import { BaseError } from "../../protocol/errors.ts";

/** Limits of one probe request: wall time, response body size, and whether private addresses may be reached. */
export type FetchBoundedLimits = { timeoutMs: number; maxBytes: number; allowPrivate: boolean };

/** A probe request: method, headers and an optional body. */
export type FetchBoundedInit = { method?: string; headers?: Record<string, string>; body?: string };

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
 * One HTTP request of the marketplace's probe: no redirect is followed, the answer's body is read to at most
 * `maxBytes` (a larger one is an error, and the connection is dropped), the whole exchange is bounded by `timeoutMs`,
 * and unless `allowPrivate` the resource must resolve only to public addresses (checked in the socket's own DNS
 * lookup, so a rebinding answer cannot slip between check and connect): loopback, private, link-local (cloud
 * metadata) and the like are refused. Every failure is data.
 * @example await fetchBounded(`${base}/health`, {}, { timeoutMs: 5_000, maxBytes: 262_144, allowPrivate: false })
 */
export function fetchBounded(
  url: string,
  init: FetchBoundedInit,
  limits: FetchBoundedLimits,
): Promise<{ status: number; text: string } | { error: string }> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve({ error: "not a URL" });
  }
  if (target.protocol !== "http:" && target.protocol !== "https:")
    return Promise.resolve({ error: `${target.protocol} is not http or https` });
  const host = target.hostname.replace(/^\[|\]$/g, "");
  if (!limits.allowPrivate && isIP(host) !== 0 && isPrivateAddress(host))
    return Promise.resolve({ error: `${host} is a private address` });
  return new Promise((resolve) => {
    let settled = false;
    const finish = (value: { status: number; text: string } | { error: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const options: RequestOptions = {
      method: init.method ?? "GET",
      headers: {
        ...init.headers,
        ...(init.body !== undefined ? { "content-length": Buffer.byteLength(init.body) } : {}),
      },
      ...(limits.allowPrivate ? {} : { lookup: publicOnly }),
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
          finish({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
        response.on("error", (error) => finish({ error: error.message }));
      },
    );
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${limits.timeoutMs} ms` });
      request.destroy();
    }, limits.timeoutMs);
    request.on("error", (error: Error & { code?: string }) =>
      finish({ error: error instanceof PrivateAddressError ? error.message : (error.code ?? error.message) }),
    );
    request.end(init.body);
  });
}
