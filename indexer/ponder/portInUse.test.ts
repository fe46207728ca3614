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

describe("Ponder's port (portInUse.ts)", () => {
  let dir: string;
  let taken: Server;
  let port: number;
  const warnings: unknown[] = [];
  const common = () => ({
    options: { port, hostname: "127.0.0.1" },
    logger: { warn: (line: unknown) => warnings.push(line) },
  });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "ponder-port-"));
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    port = (taken.address() as { port: number }).port;
  });
  after(() => {
    taken.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("moves to the next port when its own is taken, as installed", async () => {
    const getPort = await loadGetPort(dir, "installed", (source) => source);
    expect(await getPort({ common: common() })).to.be.above(port);
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
