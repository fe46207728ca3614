import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

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

/**
 * Where the ports handed out are reserved, one file per port holding the pid of the process it went to, shared by
 * every test process of this user. A port free when picked can still be taken before its service listens, which for
 * a stack's part is tens of seconds later (Ponder builds first): by a port another test process picked meanwhile. So
 * two test processes never get the same port while both live, and a process never gets one port twice.
 */
export const RESERVED_PORTS = join(tmpdir(), `free-ports-${process.getuid?.() ?? "user"}`);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readIfThere(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/**
 * Reserves `port` for this process: true when it was not reserved by a living process. A reservation left by a
 * process that ended is removed, but the port is not taken in the same breath (another process may be removing it
 * too); a later pick may take it.
 */
export function reservePort(port: number): boolean {
  mkdirSync(RESERVED_PORTS, { recursive: true });
  const file = join(RESERVED_PORTS, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  // Empty while its writer has created it and not yet written; gone when a stale one was just removed.
  const holder = Number(readIfThere(file));
  if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
    try {
      unlinkSync(file);
    } catch {
      // Removed by another process first.
    }
  }
  return false;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * A free TCP port on 127.0.0.1, picked at random below the kernel's range for outgoing connections (see
 * ephemeralStart), so that only another listener can take it before it is used, and reserved for this process (see
 * RESERVED_PORTS), so that no other test process is handed it while this one lives.
 * @example const port = await freePort()
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 1_000; tries++) {
    const port = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST + 1));
    if (reservePort(port) && (await canListen(port))) return port;
  }
  throw new Error(`no free port between ${LOWEST} and ${HIGHEST} after 1,000 tries`);
}
