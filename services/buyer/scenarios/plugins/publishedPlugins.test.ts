import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { BUYER_TOOLS } from "../../../../testkit/buyer/connectBuyer.ts";
import { connectPluginServer } from "../../../../testkit/buyer/connectPluginServer.ts";
import { fixtureMarketplace } from "../../../../testkit/buyer/fixtureMarketplace.ts";
import { holdBuyerDist } from "../../../../testkit/buyer/holdBuyerDist.ts";
import { dependencyClosure, startLocalRegistry } from "../../../../testkit/buyer/localRegistry.ts";
import { creator, validCard, validIndexRecord } from "../../../../testkit/protocol/fixtures.ts";
import { resourceIdOf } from "../../../protocol/resourceId.ts";
import { buyerPackage } from "../../src/plugins/buyerPackage.ts";

const repo = new URL("../../../../", import.meta.url).pathname;
const buyerDir = join(repo, "services/buyer");

/**
 * `--published` against a real npm registry on loopback (verdaccio, no uplinks): refused while the buyer package is not
 * there; once `npm publish` has put the packed package there, the generated `.mcp.json` launches the MCP server
 * through `npx` from that registry.
 */
describe("service-plugins generate --published", function () {
  this.timeout(600_000);
  const work = mkdtempSync(join(tmpdir(), "plugins-published-"));
  const { version, name } = buyerPackage();
  let registry: Awaited<ReturnType<typeof startLocalRegistry>>;
  let market: Awaited<ReturnType<typeof fixtureMarketplace>>;
  let close: (() => Promise<void>) | undefined;

  /** The `service-plugins` bin (its source, as node runs TypeScript) with npm pointed at the local registry. */
  const generate = (out: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      // The card host of this fixture is unreachable: the launch path is under test here, not reading cards.
      const argv = ["generate", "--marketplace-url", market.url, "--out", out, "--published", "--no-enrich", "--json"];
      const child = spawn(process.execPath, ["services/buyer/bin/service-plugins.ts", ...argv], {
        cwd: repo,
        env: { ...process.env, ...registry.env },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });

  before(async function () {
    registry = await startLocalRegistry(join(work, "registry"));
    const resourceId = resourceIdOf(creator, "weather");
    market = await fixtureMarketplace({
      records: [{ ...validIndexRecord(), cardUrl: `http://127.0.0.1:1/${resourceId}/.well-known/agent-card.json` }],
      cards: new Map([[`/${resourceId}/.well-known/agent-card.json`, validCard()]]),
    });
  });

  after(async function () {
    await close?.().catch(() => {});
    await market?.close();
    registry?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it("refuses while the exact version is not on the configured registry, and writes nothing", async function () {
    const out = join(work, "refused");
    const { code, stderr } = await generate(out);
    expect(code).to.equal(1);
    expect(stderr).to.include(`${name}@${version} is not published on ${registry.url}`);
    expect(existsSync(out)).to.equal(false);
  });

  it("launches the buyer MCP server through npx from the registry once the package is published there", async function () {
    const releaseDist = await holdBuyerDist(this);
    let packed: string;
    try {
      execFileSync(process.execPath, ["services/buyer/build.ts"], { cwd: repo, stdio: "pipe" });
      for (const dir of dependencyClosure(buyerDir)) await registry.publishInstalled(dir);
      packed = execFileSync("npm", ["pack", "--json", "--pack-destination", work], {
        cwd: buyerDir,
        env: { ...process.env, ...registry.env },
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    } finally {
      await releaseDist();
    }
    const { filename } = (JSON.parse(packed) as { filename: string }[])[0]!;
    execFileSync("npm", ["publish", join(work, filename)], {
      cwd: work,
      env: { ...process.env, ...registry.env },
      stdio: "pipe",
    });
    expect(readFileSync(join(work, "registry/.npmrc"), "utf8")).to.include(registry.token);
    expect(readdirSync(buyerDir)).to.not.include(".npmrc");

    const out = join(work, "published");
    const { code, stderr, stdout } = await generate(out);
    expect(code, stderr).to.equal(0);
    expect(JSON.parse(stdout).launch).to.equal("published");
    for (const plugin of ["service-buyer", "service-weather"]) {
      const server = JSON.parse(readFileSync(join(out, "plugins", plugin, ".mcp.json"), "utf8")).mcpServers.buyer;
      expect(server.command).to.equal("npx");
      expect(server.args).to.deep.equal(["-y", `--registry=${registry.url}`, `${name}@${version}`, "mcp"]);
    }
    for (const text of [readFileSync(join(out, "plugins/service-buyer/.mcp.json"), "utf8")])
      expect(text).to.not.include(registry.token);

    const session = await connectPluginServer(
      join(out, "plugins/service-buyer"),
      join(work, "data"),
      {},
      {
        npm_config_cache: registry.env.npm_config_cache,
        npm_config_update_notifier: "false",
      },
    );
    close = session.close;
    const tools = (await session.client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).to.deep.equal(["add_tools", ...BUYER_TOOLS]);
    const npxInstalled = execFileSync(
      "find",
      [registry.env.npm_config_cache, "-path", `*/node_modules/${name}/package.json`],
      {
        encoding: "utf8",
      },
    );
    expect(npxInstalled, "npx ran the package from somewhere else").to.include(`node_modules/${name}/package.json`);
  });
});
