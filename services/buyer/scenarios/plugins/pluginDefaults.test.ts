import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { callTool, TOOL_TIMEOUT_MS } from "../../../../testkit/buyer/connectBuyer.ts";
import { connectPluginServer } from "../../../../testkit/buyer/connectPluginServer.ts";
import { holdBuyerDist } from "../../../../testkit/buyer/holdBuyerDist.ts";
import { runPluginsCommand } from "../../../../testkit/buyer/runPluginsCommand.ts";
import { type SpawnedDemoSystem, spawnDemoSystem } from "../../../../testkit/buyer/spawnDemoSystem.ts";
import echoSpec from "../../../host/samples/echo.json" with { type: "json" };

const here = new URL("../..", import.meta.url).pathname;

type Listed = {
  name: string;
  inputSchema: { properties?: Record<string, Record<string, unknown>> };
  outputSchema?: Record<string, unknown>;
};

/**
 * Every generated plugin launched as Claude Code launches it with nothing configured: only the defaults of its
 * user options substituted into its `.mcp.json` (empty strings for every optional setting). Generated from the demo
 * system's index and its real gate, so the echo plugin's scope is the demo's echo (the same id every start); its server,
 * given only that id, types itself: a tool "echo" whose input and output are echo's schemas, read from its 402 quote.
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

  it("passes the endpoint's server only its resource id: no schema is written into the plugin", function () {
    const server = JSON.parse(readFileSync(join(out, "plugins/service-echo/.mcp.json"), "utf8")).mcpServers.buyer;
    expect(server.env.SERVICE_RESOURCE_IDS).to.equal(demo.resourceId);
    expect(Object.keys(server.env).filter((key) => key.includes("SCHEMA"))).to.deep.equal([]);
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
        expect(session.server.env.SPEND_MAX_AUTHORIZATION_SECONDS).to.equal("");
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
        const typed = (tools as Listed[]).find((t) => t.name === "echo");
        expect(typed?.inputSchema, session.stderr()).to.deep.equal(echoSpec.requestSchema);
        expect(typed?.outputSchema).to.deep.equal(echoSpec.responseSchema);
        const paid = (await session.client.callTool({ name: "echo", arguments: { hello: "defaults" } }, undefined, {
          timeout: TOOL_TIMEOUT_MS,
        })) as { isError?: boolean; structuredContent?: unknown; content: unknown; _meta?: { mode?: string } };
        expect(paid.isError, `${JSON.stringify(paid.content)}\n${session.stderr()}`).to.not.equal(true);
        expect(paid._meta?.mode).to.equal("demo");
        expect(paid.structuredContent).to.deep.equal({ echo: { hello: "defaults" } });
      } finally {
        await session.close();
      }
    }
  });
});
