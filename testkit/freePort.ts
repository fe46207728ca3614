import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * The first port the kernel hands out to outgoing connections (Linux's `ip_local_port_range`; 32768 when it cannot
 * be read). A port picked below it cannot be taken by a client's connection between the pick and the service's
 * `listen`, which may be seconds later: port 0 picks from that very range, and under parallel tests a stack once
 * found its studio port taken by a connection (EADDRINUSE).
 */
function ephemeralStart(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2048 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

const HIGHEST = ephemeralStart() - 1;
const LOWEST = Math.max(1_024, HIGHEST - 12_000);

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * A free TCP port on 127.0.0.1, picked at random below the kernel's range for outgoing connections (see
 * ephemeralStart), so that only another listener can take it before it is used.
 * @example const port = await freePort()
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    const port = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST + 1));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${LOWEST} and ${HIGHEST} after 100 tries`);
}
