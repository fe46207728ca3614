/** A network failure in words a user can act on, and whether another try may help. */
export type NetworkFailure = { reason: string; retry: boolean };

const REASONS: Record<string, (host: string) => NetworkFailure> = {
  ECONNREFUSED: (host) => ({ reason: `connection refused by ${host}: nothing listens there`, retry: false }),
  ENOTFOUND: (host) => ({ reason: `host not found: ${host.replace(/:\d+$/, "")} does not resolve`, retry: false }),
  EAI_AGAIN: (host) => ({ reason: `the name of ${host} could not be resolved now (DNS)`, retry: true }),
  ECONNRESET: (host) => ({ reason: `${host} reset the connection`, retry: true }),
  EPIPE: (host) => ({ reason: `${host} closed the connection`, retry: true }),
  UND_ERR_SOCKET: (host) => ({ reason: `${host} closed the connection`, retry: true }),
  ETIMEDOUT: (host) => ({ reason: `connecting to ${host} timed out`, retry: true }),
  UND_ERR_CONNECT_TIMEOUT: (host) => ({ reason: `connecting to ${host} timed out`, retry: true }),
  EHOSTUNREACH: (host) => ({ reason: `no route to ${host}`, retry: false }),
  ENETUNREACH: (host) => ({ reason: `the network of ${host} is unreachable`, retry: false }),
};

function causeOf(error: unknown): { code?: string; message?: string } {
  const cause = (error as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }).cause;
  return { code: cause?.code ?? cause?.errors?.[0]?.code, message: cause?.message };
}

/**
 * Names why `fetch` failed instead of undici's bare "fetch failed": connection refused, host not found, reset,
 * TLS certificate rejected, a port fetch refuses, and so on, with the host and port.
 * @example describeNetworkError(error, "http://127.0.0.1:8080/v1") // { reason: "connection refused by 127.0.0.1:8080: …", retry: false }
 */
export function describeNetworkError(error: unknown, url: string): NetworkFailure {
  const { host } = new URL(url);
  const { code, message } = causeOf(error);
  const known = code ? REASONS[code] : undefined;
  if (known) return known(host);
  if (code?.includes("CERT") || code?.startsWith("ERR_TLS") || /certificate/i.test(message ?? ""))
    return { reason: `the TLS certificate of ${host} was rejected (${code ?? message})`, retry: false };
  if (message === "bad port") return { reason: `fetch refuses to connect to port ${new URL(url).port}`, retry: false };
  return { reason: message ?? (error as Error).message, retry: true };
}
