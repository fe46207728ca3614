import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { refuseTakenPort } from "./portInUse.ts";

const portModule = readFileSync(new URL("../../node_modules/ponder/dist/esm/utils/port.js", import.meta.url), "utf8");

type GetPort = (p: { common: unknown }) => Promise<number>;

/** The installed Ponder's getNextAvailablePort, as `transform` leaves it, loaded from a file of its own. */
async function loadGetPort(dir: string, name: string, transform: (source: string) => string): Promise<GetPort> {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, transform(portModule));
  return ((await import(file)) as { getNextAvailablePort: GetPort }).getNextAvailablePort;
}

/** A server listening on `port` of 127.0.0.1 (0: any free one). */
function listening(port: number): Promise<Server> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

const closed = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe("Ponder's port (portInUse.ts)", () => {
  let dir: string;
  let taken: Server;
  let port: number;
  const warnings: unknown[] = [];
  const common = () => ({
    options: { port, hostname: "127.0.0.1" },
    logger: { warn: (line: unknown) => warnings.push(line) },
  });

  /** The port after the taken one, held until the installed code is to move there. */
  let next: Server | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "ponder-port-"));
    // A taken port whose next one is free: the installed code moves only once (a second EADDRINUSE is thrown
    // uncaught), and another test process held the next port of a port picked alone (an EADDRINUSE in a full run).
    for (let attempt = 0; next === undefined; attempt++) {
      if (attempt === 50) throw new Error("found no two free ports in a row on 127.0.0.1");
      taken = await listening(0);
      port = (taken.address() as { port: number }).port;
      next = await listening(port + 1).catch(() => undefined);
      if (next === undefined) await closed(taken);
    }
  });
  after(async () => {
    await closed(taken);
    if (next) await closed(next);
    rmSync(dir, { recursive: true, force: true });
  });

  it("moves to the next port when its own is taken, as installed", async () => {
    const getPort = await loadGetPort(dir, "installed", (source) => source);
    if (next) await closed(next);
    next = undefined;
    expect(await getPort({ common: common() })).to.equal(port + 1);
  });

  it("stops, naming the port, when its own is taken, as patched", async () => {
    const getPort = await loadGetPort(dir, "patched", refuseTakenPort);
    let refused: Error | undefined;
    await getPort({ common: common() }).catch((error: Error) => (refused = error));
    expect(refused?.message).to.equal(
      `port ${port} is taken by another process: free it, or choose another port (the indexer does not move to the next one)`,
    );
  });

  it("listens on its own port when it is free, as patched", async () => {
    const getPort = await loadGetPort(dir, "free", refuseTakenPort);
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    const freed = (free.address() as { port: number }).port;
    await new Promise<void>((resolve) => free.close(() => resolve()));
    const options = { port: freed, hostname: "127.0.0.1" };
    expect(await getPort({ common: { options, logger: { warn() {} } } })).to.equal(freed);
  });

  it("leaves patched code as it is, and stops a Ponder whose port search is not the code it was written for", () => {
    const patched = refuseTakenPort(portModule);
    expect(refuseTakenPort(patched)).to.equal(patched);
    expect(() => refuseTakenPort(portModule.replace("port += 1;", "port += 2;"))).to.throw(
      /portInUse\.ts: Ponder's getNextAvailablePort is not the 0\.16 code/,
    );
  });
});
