import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { callTool } from "../../../../testkit/buyer/connectBuyer.ts";
import { connectPluginServer } from "../../../../testkit/buyer/connectPluginServer.ts";
import { holdBuyerDist } from "../../../../testkit/buyer/holdBuyerDist.ts";
import { runPluginsCommand } from "../../../../testkit/buyer/runPluginsCommand.ts";
import { type SpawnedDemoSystem, spawnDemoSystem } from "../../../../testkit/buyer/spawnDemoSystem.ts";
import echoSpec from "../../../host/samples/echo.json" with { type: "json" };

const here = new URL("../..", import.meta.url).pathname;

type Listed = { name: string; inputSchema: { properties?: Record<string, Record<string, unknown>> } };

/**
 * Every generated plugin launched as Claude Code launches it with nothing configured: only the defaults of its
 * user options substituted into its `.mcp.json` (empty strings for every optional setting). Generated from the demo
 * system's index and its real gate, so the echo plugin's scope is the demo's echo (the same id every start) and its
 * call_resource takes echo's request schema from the 402 quote.
 */
describe("generated plugins with only their defaults", function () {
  this.timeout(600_000);
  const work = mkdtempSync(join(tmpdir(), "plugins-defaults-"));
  const out = join(work, "marketplace");
  let demo: SpawnedDemoSystem;
  let releaseDist: (() => Promise<void>) | undefined;

  before(async function () {
    releaseDist = await holdBuyerDist(this);
    execFileSync(process.execPath, [join(here, "build.ts")], { stdio: "pipe" });
    demo = await spawnDemoSystem();
    const { code, stderr } = await runPluginsCommand(
      "generate",
      "--marketplace-url",
      demo.marketplaceUrl,
      "--out",
      out,
      "--local",
    );
    expect(code, stderr).to.equal(0);
  });

  after(async function () {
    demo?.stop();
    await releaseDist?.();
    rmSync(work, { recursive: true, force: true });
  });

  it("writes the endpoint's request schema, read from its 402 quote, into its plugin's server settings", function () {
    const server = JSON.parse(readFileSync(join(out, "plugins/service-echo/.mcp.json"), "utf8")).mcpServers.buyer;
    expect(JSON.parse(server.env.SERVICE_REQUEST_SCHEMA)).to.deep.equal(echoSpec.requestSchema);
    expect(server.env.SERVICE_RESOURCE_IDS).to.equal(demo.resourceId);
  });

  it("every plugin's server starts with its defaults (blank options unset, no bad_setting), lists its tools and answers; echo pays in the demo", async function () {
    const plugins = readdirSync(join(out, "plugins")).sort();
    expect(plugins).to.deep.equal(["service-buyer", "service-echo"]);
    for (const name of plugins) {
      const session = await connectPluginServer(
        join(out, "plugins", name),
        mkdtempSync(join(work, "data-")),
        {},
        {
          HOME: work,
          XDG_DATA_HOME: join(work, "xdg"),
        },
      );
      try {
        expect(session.server.env.SPEND_HOURLY_BUDGET).to.equal("");
        const { tools } = await session.client.listTools();
        const call = (tools as Listed[]).find((t) => t.name === "call_resource");
        if (name === "service-buyer") {
          expect(call?.inputSchema.properties?.body?.type).to.equal("object");
          const found = await callTool(session.client, "search_resources");
          expect(found.isError, JSON.stringify(found.data)).to.equal(false);
          expect(found.data.mode).to.equal("demo");
          continue;
        }
        expect(call?.inputSchema.properties?.body).to.include({ type: "object" });
        expect(call?.inputSchema.properties?.body?.description).to.include("under its request schema");
        const paid = await callTool(session.client, "call_resource", { body: { hello: "defaults" } });
        expect(paid.isError, `${JSON.stringify(paid.data)}\n${session.stderr()}`).to.equal(false);
        expect(paid.data).to.include({ mode: "demo" });
        expect(paid.data.body).to.deep.equal({ echo: { hello: "defaults" } });
      } finally {
        await session.close();
      }
    }
  });
});
