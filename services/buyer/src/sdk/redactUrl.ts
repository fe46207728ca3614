/**
 * A URL as the buyer writes it into an error message or a log line, which end up in an agent's transcript: its
 * scheme, host, port and path only. The userinfo (`user:password@`, which the user may have put in `MARKETPLACE_URL`
 * or `FACILITATOR_URL`) is dropped, as viem drops it from the RPC URL in its own errors, and so are the query string
 * and the fragment (where an API key can ride). A secret carried in the path cannot be told from a route and stays.
 * Of a value that does not parse as an http(s) URL (`bob:pw@host` parses, with the scheme `bob:`) only the scheme is
 * shown, if any; one with nothing to drop is shown as it was written.
 * @example redactUrl("http://bob:pw@127.0.0.1:4000/resources?key=s3cret") // "http://127.0.0.1:4000/resources"
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "(a value that is not a URL)";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return `${parsed.protocol}…`;
  if (!parsed.username && !parsed.password && !parsed.search && !parsed.hash) return url;
  parsed.username = "";
  parsed.password = "";
  parsed.search = "";
  parsed.hash = "";
  return parsed.toString();
}
