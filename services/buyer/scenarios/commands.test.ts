import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { holdBuyerDist } from "../../../testkit/buyer/holdBuyerDist.ts";
import { checkNodeVersion } from "../src/checkNodeVersion.ts";

const here = new URL("..", import.meta.url).pathname;
const repo = join(here, "..", "..");
const BINS = ["service-buyer", "service-buyer-mcp", "service-plugins"];

/** The first `node` on the OS PATH that is older than 22 (the OS Node the README names), if the machine has one. */
function oldNode(): string | undefined {
  for (const candidate of ["/usr/bin/node", "/usr/local/bin/node"]) {
    const run = spawnSync(candidate, ["--version"], { encoding: "utf8" });
    if (run.status === 0 && Number(run.stdout.slice(1).split(".")[0]) < 22) return candidate;
  }
  return undefined;
}

/** A loopback port nobody listens on (taken, then freed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The commands of the README that print and exit, run as a user runs them. */
describe("service-buyer commands that print and exit", function () {
  this.timeout(120_000);
  const work = mkdtempSync(join(tmpdir(), "buyer-commands-"));
  let releaseDist: (() => Promise<void>) | undefined;

  before(async function () {
    releaseDist = await holdBuyerDist(this);
    execFileSync(process.execPath, [join(here, "build.ts")], { stdio: "pipe" });
  });
  after(async () => {
    await releaseDist?.();
    rmSync(work, { recursive: true, force: true });
  });

  it("service-buyer-mcp --help prints the settings and --version the package's version, each exiting at once (stdin left open)", function () {
    const version = JSON.parse(readFileSync(join(here, "package.json"), "utf8")).version;
    for (const bin of ["service-buyer-mcp", "service-buyer"]) {
      const entry = join(here, "dist", "bin", `${bin}.js`);
      const help = spawnSync(process.execPath, [entry, "--help"], { encoding: "utf8", timeout: 30_000 });
      expect(help.status, help.stderr).to.equal(0);
      for (const setting of ["BUYER_PRIVATE_KEY", "RPC_URL", "ESCROW_ADDRESS", "SPEND_DAILY_BUDGET"])
        expect(help.stdout).to.include(setting);
      const shown = spawnSync(process.execPath, [entry, "--version"], { encoding: "utf8", timeout: 30_000 });
      expect(shown.status, shown.stderr).to.equal(0);
      expect(shown.stdout.trim()).to.equal(version);
    }
    const wrong = spawnSync(process.execPath, [join(here, "dist/bin/service-buyer-mcp.js"), "--bogus"], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(wrong.status).to.equal(2);
    expect(wrong.stderr).to.include('unknown argument "--bogus"');
  });

  it("every bin refuses an older Node with what to install, before loading anything", function () {
    expect(checkNodeVersion("22.0.0")).to.equal(undefined);
    expect(checkNodeVersion("24.1.0")).to.equal(undefined);
    expect(checkNodeVersion("20.20.2", "service-buyer-mcp")).to.match(/needs Node 22 or newer; this is Node 20\.20\.2/);
    const node = oldNode();
    if (!node) this.skip();
    for (const bin of BINS) {
      const run = spawnSync(node, [join(here, "dist", "bin", `${bin}.js`), "--version"], { encoding: "utf8" });
      expect(run.status, `${bin}: ${run.stderr}`).to.equal(1);
      expect(run.stderr).to.include(`${bin} needs Node 22 or newer`).and.to.include("Install Node 22");
      expect(run.stderr).to.not.include("at ");
    }
  });

  it("`npm run demo` on a stopped stack whose stack.json was left behind says to start the system, with no trace", async function () {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const address = `0x${"11".repeat(20)}`;
    writeFileSync(
      join(work, "stack.json"),
      JSON.stringify({
        chainId: 5042002,
        rpcUrl: url,
        marketplaceUrl: url,
        facilitatorUrl: url,
        hostUrl: url,
        indexerUrl: url,
        publishToken: "t",
        hostToken: "t",
        contracts: { token: address, identity: address, registry: address, escrow: address },
        buyers: [],
        resources: [],
      }),
    );
    for (const stackDir of [work, join(work, "none")]) {
      const run = spawnSync(process.execPath, [join(here, "src/sdk/demo.ts")], {
        cwd: repo,
        env: { ...process.env, STACK_DIR: stackDir },
        encoding: "utf8",
      });
      expect(run.status, run.stderr).to.equal(2);
      expect(run.stderr).to.include("start the system first with `npm start`");
      expect(run.stderr).to.not.match(/\n\s+at /);
    }
  });
});
