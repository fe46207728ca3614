import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";

const V6_LOOPBACK = "00000000000000000000000001000000";

function decode(hex: string): string {
  if (hex.length === 8) {
    const bytes = hex.match(/../g)?.map((b) => Number.parseInt(b, 16)) ?? [];
    return bytes.reverse().join(".");
  }
  if (hex === V6_LOOPBACK) return "::1";
  if (hex.startsWith("0000000000000000FFFF0000")) return `::ffff:${decode(hex.slice(24))}`;
  if (/^0+$/.test(hex)) return "::";
  return `v6:${hex}`;
}

/**
 * The local addresses that listen on TCP `port` on this machine (Linux: read from /proc/net/tcp and tcp6), e.g.
 * `["127.0.0.1"]`, or `["0.0.0.0"]` for a socket bound to every interface.
 * @example listenAddresses(8545) // ["127.0.0.1"]
 */
export function listenAddresses(port: number): string[] {
  const found: string[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== "0A") continue;
      const [address, hexPort] = local.split(":") as [string, string];
      if (Number.parseInt(hexPort, 16) === port) found.push(decode(address));
    }
  }
  return found;
}

/** Whether a listen address accepts connections from this machine only. */
export const isLoopbackListen = (address: string) =>
  address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");

/** The first IPv4 address of this machine that is not loopback, if any. */
export function outsideAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces()))
    for (const entry of list ?? []) if (!entry.internal && entry.family === "IPv4") return entry.address;
  return undefined;
}

/** Whether a TCP connection to `host:port` is accepted (true) or refused / unanswered (false). */
export function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2_000 });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}
