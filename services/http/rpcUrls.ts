import type { HttpTransportConfig, Transport } from "viem";
import { http } from "viem";
import { z } from "zod";

/** The endpoints of an `RPC_URL` setting: one, or several separated by commas (the facilitator fails over to the next). */
export function rpcUrlsOf(setting: string): string[] {
  return setting
    .split(",")
    .map((url) => url.trim())
    .filter(Boolean);
}

/** An `RPC_URL` setting: a URL, or several separated by commas. */
export const rpcSettingSchema = z
  .string()
  .min(1)
  .refine((value) => rpcUrlsOf(value).length > 0 && rpcUrlsOf(value).every((url) => z.url().safeParse(url).success), {
    message: "a URL, or several separated by commas",
  });

/**
 * The label of an RPC endpoint in metrics, logs and printed output: its host and port only. Hosted providers put the
 * API key in the path, the query or the credentials of the URL, none of which may reach a metric or a log.
 * @example endpointLabel("https://arc-testnet.example.com/v2/SECRET") // "arc-testnet.example.com"
 */
export function endpointLabel(rpcUrl: string): string {
  try {
    return new URL(rpcUrl).host || "unknown";
  } catch {
    return "unknown";
  }
}

const ERROR_TEXTS = ["message", "shortMessage", "details", "url", "stack"] as const;

/**
 * `error`, with every copy of `rpcUrl` in its texts and its causes' replaced by the endpoint's label (endpointLabel):
 * viem writes the whole URL of a failed request into its error ("URL: https://…/v2/KEY"), and such errors reach logs,
 * stored failure reasons and printed output. Returns the same error, changed in place.
 * @example throw withoutRpcUrl(error, rpcUrl)
 */
export function withoutRpcUrl<E>(error: E, rpcUrl: string): E {
  const label = endpointLabel(rpcUrl);
  // As given, and as viem prints it: without the credentials.
  const forms = [...new Set([rpcUrl, rpcUrl.replace(/\/\/[^/@]*@/, "//")])];
  const redact = (text: string) => forms.reduce((out, form) => out.replaceAll(form, label), text);
  const seen = new Set<unknown>();
  for (let at: unknown = error; at !== null && typeof at === "object" && !seen.has(at); ) {
    seen.add(at);
    const texts = at as Record<string, unknown>;
    for (const key of ERROR_TEXTS) {
      const text = texts[key];
      const redacted = typeof text === "string" ? redact(text) : text;
      if (redacted !== text) texts[key] = redacted;
    }
    if (Array.isArray(texts.metaMessages))
      texts.metaMessages = texts.metaMessages.map((m) => (typeof m === "string" ? redact(m) : m));
    at = texts.cause;
  }
  return error;
}

/**
 * withoutRpcUrl for every endpoint of an `RPC_URL` setting (unset: the error as it is).
 * @example process.stderr.write(withoutRpcUrls(error, process.env.RPC_URL).message)
 */
export function withoutRpcUrls<E>(error: E, setting: string | undefined): E {
  for (const url of rpcUrlsOf(setting ?? "")) withoutRpcUrl(error, url);
  return error;
}

/**
 * viem's `http` transport whose every failed request is rethrown without the URL in its texts (withoutRpcUrl): the
 * URL's path, query or credentials hold a hosted provider's API key, which viem's error messages print whole.
 * @example createPublicClient({ chain, transport: redactedHttp(rpcUrl) })
 */
export function redactedHttp(rpcUrl: string, config: HttpTransportConfig = {}): Transport {
  return onRequestError(http(rpcUrl, config), (error) => withoutRpcUrl(error, rpcUrl));
}

/**
 * `inner` whose every failed request throws what `onError` makes of its error (given the JSON-RPC method).
 * @example onRequestError(http(url), (error, method) => { count(method); return error })
 */
export function onRequestError(inner: Transport, onError: (error: unknown, method: string) => unknown): Transport {
  return (parameters) => {
    const transport = inner(parameters);
    return {
      ...transport,
      async request(args, options) {
        try {
          return await transport.request(args, options);
        } catch (error) {
          throw onError(error, args.method);
        }
      },
    } as ReturnType<Transport>;
  };
}
