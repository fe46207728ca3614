import { isIPv4 } from "node:net";

/**
 * Whether a listen address accepts connections from this machine only: `localhost`, 127.0.0.0/8 or `::1`. The
 * wildcard addresses (`0.0.0.0`, `::`, empty) and every other address are reachable from the network.
 * @example isLoopbackHost("127.0.0.1") // true; isLoopbackHost("0.0.0.0") // false
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "");
  if (bare === "localhost" || bare === "::1" || bare === "0:0:0:0:0:0:0:1") return true;
  if (bare.startsWith("::ffff:")) return isLoopbackHost(bare.slice("::ffff:".length));
  return isIPv4(bare) && bare.split(".")[0] === "127";
}
